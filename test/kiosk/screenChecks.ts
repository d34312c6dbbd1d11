import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

export const ORIENTATIONS = {
  portrait: { width: 1080, height: 1920 },
  landscape: { width: 1920, height: 1080 },
} as const;
export type Orientation = keyof typeof ORIENTATIONS;
export const LANGUAGES = ['sq', 'sr', 'tr', 'en'] as const;

/**
 * The brief's contrast, stricter than WCAG's for large text (all text here is 28 px or
 * more, which WCAG lets off at 3:1, and 4.5:1 for AAA): 4.5:1 for every text, and 7:1 for
 * every text in high-contrast mode, whatever its size.
 */
const CONTRAST = {
  'color-contrast': { options: { contrastRatio: { large: { expected: 4.5 } } } },
  'color-contrast-enhanced': {
    options: {
      contrastRatio: {
        normal: { expected: 7, minThreshold: 0 },
        large: { expected: 7, minThreshold: 0 },
      },
    },
  },
};

/**
 * axe-core into the page, once per document (the kiosk is one page: its screens change
 * without a load, so the checker stays). The kiosk's CSP refuses inline scripts (rightly);
 * evaluating through the DevTools protocol runs the checker without weakening it.
 */
export async function injectAxe(page: Page): Promise<void> {
  if (await page.evaluate(() => 'axe' in window)) return;
  await page.evaluate(axe.source);
}

/** WCAG 2 A and AA by axe-core (7:1 contrast too in high-contrast mode): zero violations. */
export async function checkAxe(page: Page, screen: string): Promise<void> {
  await injectAxe(page);
  const contrast = await page.evaluate(() =>
    document.documentElement.classList.contains('contrast'),
  );
  const result = await page.evaluate(
    ({ tags, checks }) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: tags,
        // Every rule still runs on every node; only the passes' nodes, which nothing here
        // reads, are not each given a selector (axe's slowest step after the rules).
        resultTypes: ['violations'],
        ...({ checks } as object),
      }),
    {
      checks: CONTRAST,
      tags: contrast
        ? ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'wcag2aaa']
        : ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa'],
    },
  );
  expect(
    result.violations.map(
      (v) => `${screen}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
  ).toEqual([]);
}

interface Box {
  name: string;
  primary: boolean;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Every button a finger can reach now: shown, and not covered by something else. */
function buttons(page: Page): Promise<Box[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('button')]
      .filter((b) => {
        if (b.offsetParent === null) return false;
        const r = b.getBoundingClientRect();
        const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
        return hit !== null && b.contains(hit);
      })
      .map((b) => {
        const r = b.getBoundingClientRect();
        return {
          name: b.getAttribute('aria-label') ?? b.textContent ?? '',
          primary: b.matches('.primary, .key-primary, .big'),
          left: r.left,
          top: r.top,
          right: r.right,
          bottom: r.bottom,
        };
      })
      .filter((b) => b.right > b.left),
  );
}

/**
 * Touch targets: 64 × 64 px at least, primary actions 96 px tall, 16 px between any two;
 * and all of them in the reach zone: the lower two thirds, the lower half in low layout.
 */
export async function checkControls(page: Page, screen: string): Promise<void> {
  const boxes = await buttons(page);
  expect(boxes.length, `${screen}: has controls`).toBeGreaterThan(0);
  const viewport = page.viewportSize()!;
  const low = await page.evaluate(() => document.documentElement.classList.contains('low'));
  const reachTop = viewport.height * (low ? 1 / 2 : 1 / 3);
  const problems: string[] = [];
  for (const b of boxes) {
    const width = b.right - b.left;
    const height = b.bottom - b.top;
    if (width < 63.5 || height < 63.5) problems.push(`${b.name}: ${width}×${height} px`);
    if (b.primary && height < 95.5) problems.push(`${b.name}: primary ${height} px tall`);
    if (b.top < reachTop - 0.5) problems.push(`${b.name}: top ${b.top} above ${reachTop}`);
    if (b.bottom > viewport.height + 0.5) problems.push(`${b.name}: off screen`);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i]!;
      const c = boxes[j]!;
      const gap = Math.max(c.left - a.right, a.left - c.right, c.top - a.bottom, a.top - c.bottom);
      if (gap < 15.5) problems.push(`${a.name} and ${c.name}: ${gap.toFixed(1)} px apart`);
    }
  }
  expect(problems, `${screen}: controls`).toEqual([]);
}

/**
 * Body text at least 28 px, headings at least 48 px; no text cut off the screen. Text in
 * a scrolling region may lie beyond it (it is scrolled to): then the region itself must
 * be on screen, and reachable by keyboard (axe's scrollable-region-focusable).
 */
export async function checkText(page: Page, screen: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    const scroller = (element: Element): Element | null => {
      for (let e = element.parentElement; e && e !== document.body; e = e.parentElement) {
        const overflow = getComputedStyle(e).overflowY;
        if ((overflow === 'auto' || overflow === 'scroll') && e.scrollHeight > e.clientHeight)
          return e;
      }
      return null;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim();
      const element = node.parentElement;
      if (!text || !element || element.closest('[hidden], svg')) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      const size = parseFloat(getComputedStyle(element).fontSize);
      const heading = element.closest('h1');
      if (size < 27.5) found.push(`"${text.slice(0, 30)}": ${size} px`);
      if (heading && size < 47.5) found.push(`heading "${text.slice(0, 30)}": ${size} px`);
      const region = scroller(element)?.getBoundingClientRect();
      const shown = region ?? box;
      if (shown.bottom > innerHeight + 1 || shown.right > innerWidth + 1)
        found.push(`"${text.slice(0, 30)}": off screen`);
      const frame = element.closest('.screen-info')?.getBoundingClientRect();
      if (frame && box.bottom > frame.bottom + 1) found.push(`"${text.slice(0, 30)}": cut off`);
    }
    return found;
  });
  expect(problems, `${screen}: text`).toEqual([]);
}

/**
 * The open door's number: at least 160 px, and on the screen's centre lines, across and
 * down (in portrait too: not in the top quarter, far from a seated person's eyes).
 */
export async function checkDoorNumber(page: Page, screen: string): Promise<void> {
  const number = await page.locator('.door-number-value').evaluate((element) => {
    const box = element.getBoundingClientRect();
    return {
      size: parseFloat(getComputedStyle(element).fontSize),
      across: (box.left + box.right) / 2,
      down: (box.top + box.bottom) / 2,
    };
  });
  const { width, height } = page.viewportSize()!;
  expect(number.size, `${screen}: door number size`).toBeGreaterThanOrEqual(160);
  expect(Math.abs(number.across - width / 2), `${screen}: door number off centre`).toBeLessThan(
    width * 0.02,
  );
  expect(
    Math.abs(number.down - height / 2),
    `${screen}: door number ${number.down} px down, not on the middle line`,
  ).toBeLessThan(height * 0.05);
}

/**
 * A final screen's Done: a large target across the whole width of its column (the whole
 * screen in portrait), with the seconds left before the screen goes home shown on it.
 */
export async function checkDone(page: Page, screen: string): Promise<void> {
  const done = await page.locator('button.done').evaluate((button) => {
    const box = button.getBoundingClientRect();
    const column = button.closest('.screen-actions')!.getBoundingClientRect();
    return {
      width: box.width,
      height: box.height,
      column: column.width,
      countdown: button.querySelector('.countdown')?.textContent ?? '',
    };
  });
  const viewport = page.viewportSize()!;
  expect(done.width, `${screen}: Done across its column`).toBeGreaterThanOrEqual(done.column - 1);
  if (viewport.height > viewport.width)
    expect(done.width, `${screen}: Done across the screen`).toBeGreaterThan(viewport.width * 0.9);
  expect(done.height, `${screen}: Done height`).toBeGreaterThanOrEqual(128);
  expect(done.countdown, `${screen}: countdown on Done`).toMatch(/\d+/);
}

const isContrast = (page: Page) =>
  page.evaluate(() => document.documentElement.classList.contains('contrast'));

/**
 * The high-contrast theme claims 7:1: axe's AAA contrast rule (color-contrast-enhanced)
 * on this very screen in it, switched on and off by its button as a person would.
 */
export async function checkHighContrast(page: Page, screen: string): Promise<void> {
  if (await isContrast(page)) return; // checkAxe ran the AAA rules already
  const toggle = page.locator('.screen-options:visible .option-contrast').first();
  await toggle.click();
  await expect.poll(() => isContrast(page)).toBe(true);
  await injectAxe(page);
  const result = await page.evaluate(
    (checks) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, {
        runOnly: { type: 'rule', values: ['color-contrast', 'color-contrast-enhanced'] },
        resultTypes: ['violations', 'incomplete'],
        // Check options per run: axe's types leave them out, its engine takes them.
        ...({ checks } as object),
      }),
    CONTRAST,
  );
  await toggle.click();
  await expect.poll(() => isContrast(page)).toBe(false);
  // Nothing left undecided but symbols (⌫), which carry no text to read: they share the
  // colours of the keys beside them, which were judged.
  expect(
    result.incomplete.flatMap((v) =>
      v.nodes
        .map((n) => `${screen} (high contrast, undecided): ${v.id} ${n.target.join(' ')}`)
        .filter((_, i) => !/non-text characters/.test(v.nodes[i]!.any[0]?.message ?? '')),
    ),
  ).toEqual([]);
  expect(
    result.violations.flatMap((v) =>
      v.nodes.map(
        (n) =>
          `${screen} (high contrast): ${v.id} ${n.target.join(' ')}: ${n.any[0]?.message ?? ''}`,
      ),
    ),
  ).toEqual([]);
}

export async function checkScreen(page: Page, screen: string): Promise<void> {
  await checkAxe(page, screen);
  await checkHighContrast(page, screen);
  await checkControls(page, screen);
  await checkText(page, screen);
}
