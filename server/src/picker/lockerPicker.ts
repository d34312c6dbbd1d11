import type { FoundStation, FreeDoors, OpeningHours, Size } from '@locker/shared';
import {
  INTL_LOCALE,
  PICKER_LANGUAGES,
  TEXTS,
  type PickerLanguage,
  type PickerTexts,
} from './texts';

// <locker-picker>: the locker picker a shop embeds on its checkout page (issue 27), served
// as /picker/v1/locker-picker.js. Browser code with no framework and no run-time import:
// built (bundled, IIFE) by server/src/picker/serve.ts. It never holds an API key: it asks
// `endpoint`, the shop's own server, which forwards to GET /api/v1/stations with its key.
//
// CSP: nothing inline. The DOM is built with createElement/textContent (no innerHTML, so
// Trusted Types pages work too) and the styles are a constructed stylesheet adopted by the
// shadow root, which `style-src` does not govern; the page needs only `script-src` for
// this file and `connect-src` for its endpoint.

const SIZE_ORDER: Size[] = ['S', 'M', 'L', 'XL'];
const WEEKDAYS = ['mo', 'tu', 'we', 'th', 'fr', 'sa', 'su'] as const;

const CSS = `
:host { display: block; font: inherit; color: #1b1b1b; --accent: var(--locker-picker-accent, #0b57d0); }
:host([hidden]) { display: none; }
.picker { border: 1px solid #767676; border-radius: 8px; padding: 12px; background: #fff; }
.title { font-weight: 700; font-size: 1.1em; margin: 0 0 8px; }
.filter { display: flex; gap: 8px; align-items: center; min-height: 24px; margin: 0 0 8px; cursor: pointer; }
.filter input { width: 20px; height: 20px; margin: 0; accent-color: var(--accent); }
.status { margin: 8px 0; }
.status:empty { display: none; }
.problem { color: #8a1c1c; font-weight: 600; }
.list { display: flex; flex-direction: column; gap: 8px; }
.list:empty { display: none; }
.option { display: grid; grid-template-columns: 24px 1fr; gap: 2px 10px; padding: 10px 12px;
  border: 2px solid #c4c4c4; border-radius: 6px; cursor: pointer; background: #fff; }
.option:hover { border-color: #555; }
.option[aria-selected='true'] { border-color: var(--accent); background: #eef3fd; }
.option[aria-disabled='true'] { cursor: default; color: #4a4a4a; background: #f4f4f4; }
.option:focus { outline: none; }
.option:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.mark { grid-row: 1 / span 5; width: 18px; height: 18px; margin-top: 2px; border: 2px solid #555;
  border-radius: 50%; box-sizing: border-box; }
.option[aria-selected='true'] .mark { border: 6px solid var(--accent); }
.head { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 4px 12px; }
.name { font-weight: 700; }
.distance, .line { font-size: 0.95em; }
.free { font-weight: 600; }
.none { color: #8a1c1c; }
button { font: inherit; min-height: 32px; padding: 4px 14px; border: 2px solid var(--accent);
  border-radius: 6px; background: #fff; color: var(--accent); cursor: pointer; }
button:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
@media (forced-colors: active) {
  .option[aria-selected='true'] { border-color: Highlight; }
  .option[aria-selected='true'] .mark { border-color: Highlight; }
}
`;

/** What the `locker-selected` event carries. */
export interface LockerSelectedDetail {
  id: string;
  code: string;
  name: string;
  address: string | null;
}

type State =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'error'; status: number | null }
  | { kind: 'misconfigured'; reason: 'noEndpoint' | 'noNear' }
  | { kind: 'done'; stations: FoundStation[] };

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

/** Doors a parcel of `size` fits (its size or larger); all of them without a size. */
function fitting(free: FreeDoors, size: Size | undefined): number {
  const from = size ? SIZE_ORDER.indexOf(size) : 0;
  return SIZE_ORDER.slice(from).reduce((sum, s) => sum + (free[s] ?? 0), 0);
}

/** "Mon–Fri 08:00–20:00; Sat 09:00–14:00", in the station's own clock (as given). */
export function formatHours(hours: OpeningHours, texts: PickerTexts): string {
  if (!hours || hours.length === 0) return texts.hoursUnknown;
  if (
    hours.length === 1 &&
    hours[0]!.days.length === 7 &&
    hours[0]!.opens === '00:00' &&
    hours[0]!.closes === '24:00'
  )
    return `${texts.hours} ${texts.always}`;
  const names = texts.weekdays;
  const spans = hours.map((span) => {
    const indexes = span.days.map((d) => WEEKDAYS.indexOf(d)).sort((a, b) => a - b);
    const runs: [number, number][] = [];
    for (const i of indexes) {
      const last = runs.at(-1);
      if (last && i === last[1] + 1) last[1] = i;
      else runs.push([i, i]);
    }
    const days = runs
      .map(([a, b]) =>
        a === b ? names[a] : b === a + 1 ? `${names[a]}, ${names[b]}` : `${names[a]}–${names[b]}`,
      )
      .join(', ');
    return `${days} ${span.opens}–${span.closes}`;
  });
  return `${texts.hours} ${spans.join('; ')}`;
}

function formatDistance(metres: number, locale: string): string {
  if (metres < 1000)
    return new Intl.NumberFormat(locale, { style: 'unit', unit: 'meter' }).format(
      Math.round(metres / 10) * 10,
    );
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: 'kilometer',
    maximumFractionDigits: metres < 10_000 ? 1 : 0,
  }).format(metres / 1000);
}

const SIZES: readonly string[] = SIZE_ORDER;

export class LockerPicker extends HTMLElement {
  static observedAttributes = ['endpoint', 'near', 'size', 'accessible', 'limit', 'lang'];

  #root: ShadowRoot;
  #wrapper: HTMLDivElement;
  #title: HTMLParagraphElement;
  #filter: HTMLInputElement;
  #filterText: HTMLSpanElement;
  #status: HTMLParagraphElement;
  #list: HTMLDivElement;
  #retry: HTMLButtonElement;
  #state: State = { kind: 'idle' };
  #selected: string | null = null;
  #focused = 0;
  #request: AbortController | null = null;
  #pending = false;
  #announcement = '';

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    this.#root.adoptedStyleSheets = [sheet];

    this.#wrapper = element('div', 'picker');
    this.#wrapper.setAttribute('part', 'picker');
    this.#title = element('p', 'title');
    this.#title.id = 'title';
    const label = element('label', 'filter');
    this.#filter = element('input');
    this.#filter.type = 'checkbox';
    this.#filter.addEventListener('change', () => {
      // The box is the attribute: a shop may also set `accessible` itself.
      this.toggleAttribute('accessible', this.#filter.checked);
    });
    this.#filterText = element('span');
    label.append(this.#filter, this.#filterText);
    // Polite: the count, an empty result or a failure is read once, after the change.
    this.#status = element('p', 'status');
    this.#status.setAttribute('role', 'status');
    this.#list = element('div', 'list');
    this.#list.setAttribute('role', 'listbox');
    this.#list.setAttribute('aria-labelledby', 'title');
    this.#list.addEventListener('keydown', (event) => this.#onKey(event));
    this.#retry = element('button');
    this.#retry.type = 'button';
    this.#retry.hidden = true;
    this.#retry.addEventListener('click', () => void this.#load());
    this.#wrapper.append(this.#title, label, this.#status, this.#list, this.#retry);
    this.#root.append(this.#wrapper);
  }

  /** The chosen station's id, or null. */
  get value(): string | null {
    return this.#selected;
  }

  connectedCallback(): void {
    this.#schedule();
  }

  disconnectedCallback(): void {
    this.#request?.abort();
  }

  attributeChangedCallback(name: string, old: string | null, now: string | null): void {
    if (old === now) return;
    if (name === 'lang') this.#render();
    else this.#schedule();
  }

  /** The language: the element's own `lang`, else the page's; one of the four, else English. */
  get language(): PickerLanguage {
    const tag =
      this.closest('[lang]')?.getAttribute('lang') ?? document.documentElement.lang ?? 'en';
    const primary = tag.split('-')[0]!.toLowerCase();
    return (PICKER_LANGUAGES as readonly string[]).includes(primary)
      ? (primary as PickerLanguage)
      : 'en';
  }

  /** Several attributes set in one go ask once. */
  #schedule(): void {
    if (this.#pending || !this.isConnected) return;
    this.#pending = true;
    queueMicrotask(() => {
      this.#pending = false;
      void this.#load();
    });
  }

  get #size(): Size | undefined {
    const size = this.getAttribute('size')?.toUpperCase();
    return size && SIZES.includes(size) ? (size as Size) : undefined;
  }

  async #load(): Promise<void> {
    this.#request?.abort();
    const endpoint = this.getAttribute('endpoint');
    const near = this.getAttribute('near')?.trim();
    if (!endpoint) return this.#set({ kind: 'misconfigured', reason: 'noEndpoint' });
    if (!near) return this.#set({ kind: 'misconfigured', reason: 'noNear' });
    const url = new URL(endpoint, document.baseURI);
    url.searchParams.set('near', near);
    const size = this.#size;
    if (size) url.searchParams.set('size', size);
    if (this.hasAttribute('accessible')) url.searchParams.set('accessible', 'true');
    const limit = Number(this.getAttribute('limit'));
    if (Number.isInteger(limit) && limit >= 1 && limit <= 50)
      url.searchParams.set('limit', String(limit));
    const request = new AbortController();
    this.#request = request;
    this.#set({ kind: 'loading' });
    try {
      const answer = await fetch(url, {
        signal: request.signal,
        headers: { accept: 'application/json' },
      });
      if (!answer.ok) return this.#set({ kind: 'error', status: answer.status });
      const body = (await answer.json()) as { data?: unknown };
      if (!Array.isArray(body.data)) return this.#set({ kind: 'error', status: answer.status });
      this.#set({ kind: 'done', stations: body.data as FoundStation[] });
    } catch {
      if (request.signal.aborted) return;
      this.#set({ kind: 'error', status: null });
    }
  }

  #set(state: State): void {
    this.#state = state;
    if (state.kind === 'done') {
      if (!state.stations.some((s) => s.id === this.#selected)) this.#selected = null;
      const at = state.stations.findIndex((s) => s.id === this.#selected);
      this.#focused = Math.max(at, 0);
    }
    this.#render();
  }

  #render(): void {
    const language = this.language;
    const texts = TEXTS[language];
    const locale = INTL_LOCALE[language];
    this.#wrapper.lang = language;
    this.#title.textContent = texts.title;
    this.#filterText.textContent = texts.filter;
    this.#filter.checked = this.hasAttribute('accessible');
    this.#retry.textContent = texts.retry;
    const state = this.#state;
    this.#retry.hidden = state.kind !== 'error';
    this.#status.classList.toggle(
      'problem',
      state.kind === 'error' || state.kind === 'misconfigured',
    );
    const plural = new Intl.PluralRules(locale);
    switch (state.kind) {
      case 'idle':
        this.#announce('');
        break;
      case 'loading':
        this.#announce(texts.loading);
        break;
      case 'misconfigured':
        this.#announce(texts[state.reason]);
        break;
      case 'error':
        this.#announce(
          `${texts.error} ${state.status === null ? texts.errorNetwork : texts.errorStatus(state.status)}`,
        );
        break;
      case 'done': {
        const n = state.stations.length;
        const none = this.hasAttribute('accessible') ? texts.emptyAccessible : texts.empty;
        this.#announce(n === 0 ? none : texts.found(n, plural.select(n)));
        break;
      }
      default: {
        const never: never = state;
        throw new Error(`unknown state ${JSON.stringify(never)}`);
      }
    }
    const focusedHere = this.#root.activeElement?.getAttribute('role') === 'option';
    this.#list.replaceChildren(
      ...(state.kind === 'done'
        ? state.stations.map((station, i) => this.#option(station, i, texts, locale, plural))
        : []),
    );
    if (focusedHere) this.#focusOption(this.#focused);
  }

  /** The live region's text; written again only when it changes. */
  #announce(text: string): void {
    if (text === this.#announcement) return;
    this.#announcement = text;
    this.#status.textContent = text;
  }

  #option(
    station: FoundStation,
    i: number,
    texts: PickerTexts,
    locale: string,
    plural: Intl.PluralRules,
  ): HTMLElement {
    const size = this.#size;
    const free = fitting(station.free_doors, size);
    const accessibleFree = fitting(station.accessible_free_doors, size);
    const option = element('div', 'option');
    option.id = `station-${i}`;
    option.setAttribute('role', 'option');
    option.dataset.id = station.id;
    option.setAttribute('aria-selected', String(station.id === this.#selected));
    option.tabIndex = i === this.#focused ? 0 : -1;
    if (free === 0) option.setAttribute('aria-disabled', 'true');

    const mark = element('span', 'mark');
    mark.setAttribute('aria-hidden', 'true');
    // Named by all it shows (WCAG 2.5.3: the name holds the visible text), in reading
    // order; each part a block, so a screen reader hears them apart.
    const head = element('div', 'head');
    const name = element('div', 'name', station.name);
    const distance = element(
      'div',
      'distance',
      texts.away(formatDistance(station.distance_m, locale)),
    );
    head.append(name, distance);
    const lines: HTMLElement[] = [];
    const line = (text: string, extra = '') => {
      lines.push(element('div', `line ${extra}`.trim(), text));
    };
    if (station.address) line(station.address);
    line(formatHours(station.opening_hours, texts));
    line(
      station.step_free === null
        ? texts.stepUnknown
        : station.step_free
          ? texts.stepFree
          : texts.steps,
    );
    line(
      free === 0
        ? texts.full
        : `${texts.free(free, plural.select(free))} (${texts.accessibleFree(accessibleFree, plural.select(accessibleFree))})`,
      free === 0 ? 'free none' : 'free',
    );
    option.append(mark, head, ...lines);
    option.addEventListener('click', () => {
      this.#focused = i;
      this.#focusOption(i);
      this.#choose(i);
    });
    return option;
  }

  #options(): HTMLElement[] {
    return [...this.#list.querySelectorAll<HTMLElement>('[role="option"]')];
  }

  #focusOption(i: number): void {
    const options = this.#options();
    options.forEach((o, j) => (o.tabIndex = j === i ? 0 : -1));
    options[i]?.focus();
  }

  #onKey(event: KeyboardEvent): void {
    const options = this.#options();
    if (options.length === 0) return;
    const last = options.length - 1;
    const moves: Record<string, number> = {
      ArrowDown: Math.min(this.#focused + 1, last),
      ArrowRight: Math.min(this.#focused + 1, last),
      ArrowUp: Math.max(this.#focused - 1, 0),
      ArrowLeft: Math.max(this.#focused - 1, 0),
      Home: 0,
      End: last,
    };
    if (event.key in moves) {
      event.preventDefault();
      this.#focused = moves[event.key]!;
      this.#focusOption(this.#focused);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.#choose(this.#focused);
    }
  }

  #choose(i: number): void {
    if (this.#state.kind !== 'done') return;
    const station = this.#state.stations[i];
    if (!station || fitting(station.free_doors, this.#size) === 0) return;
    this.#selected = station.id;
    for (const option of this.#options())
      option.setAttribute('aria-selected', String(option.dataset.id === station.id));
    const texts = TEXTS[this.language];
    this.#announce(texts.selected(station.name));
    const detail: LockerSelectedDetail = {
      id: station.id,
      code: station.code,
      name: station.name,
      address: station.address,
    };
    this.dispatchEvent(
      new CustomEvent('locker-selected', { detail, bubbles: true, composed: true }),
    );
  }
}

if (!customElements.get('locker-picker')) customElements.define('locker-picker', LockerPicker);
