import type { Language } from '@locker/shared';
import { pluralForm } from '../domain/intl';
import type { Context, Middleware } from 'koa';
import type { ServerConfig } from '../config';
import { extendStorageNow } from '../capacity/extend';
import { LINK_TOKEN_PATTERN, linkTokenHash } from '../domain/recipientLink';
import type { Services } from '../services';
import { escape, pageHeaders, answerGone, answerPeople } from './html';

// The recipient takes their parcel's one storage extension from their own page (issue 27,
// docs/decisions.md "One storage extension per parcel"): a plain HTML form that posts to
// `/p/{token}/extend`, no script. The link's token is the credential, as for the page.

/** "48 hours" in each language, as the page's offer and its button say it. */
function hoursOf(language: Language, hours: number): string {
  const form = pluralForm(language, hours);
  switch (language) {
    case 'en':
      return `${hours} ${form === 'one' ? 'hour' : 'hours'}`;
    case 'sq':
      return `${hours} orë`;
    case 'sr': // 1 sat, 2–4 sata, 5+ sati (21 sat, 24 sata, 48 sati)
      return `${hours} ${form === 'one' ? 'sat' : form === 'few' ? 'sata' : 'sati'}`;
    case 'tr':
      return `${hours} saat`;
    default: {
      const unknown: never = language;
      throw new Error(`no page text for ${String(unknown)}`);
    }
  }
}

interface ExtensionTexts {
  offer: (hours: string) => string;
  button: (hours: string) => string;
  done: (hours: string) => string;
}

const TEXTS: Record<Language, ExtensionTexts> = {
  en: {
    offer: (h) => `Can’t make it in time? The locker can keep your parcel ${h} longer, once.`,
    button: (h) => `Keep it ${h} longer`,
    done: (h) => `Your parcel is kept ${h} longer. It cannot be extended again.`,
  },
  sq: {
    offer: (h) => `Nuk arrini me kohë? Stacioni mund ta mbajë pakon tuaj ${h} më gjatë, një herë.`,
    button: (h) => `Mbajeni ${h} më gjatë`,
    done: (h) => `Pakoja juaj mbahet ${h} më gjatë. Nuk mund të zgjatet më.`,
  },
  sr: {
    offer: (h) => `Ne stižete na vreme? Paketomat može da čuva Vaš paket još ${h}, jednom.`,
    button: (h) => `Čuvajte ga još ${h}`,
    done: (h) => `Vaš paket se čuva još ${h}. Čuvanje se ne može ponovo produžiti.`,
  },
  tr: {
    offer: (h) => `Zamanında gelemiyor musunuz? Dolap kargonuzu bir kez ${h} daha saklayabilir.`,
    button: (h) => `${h} daha saklayın`,
    done: (h) => `Kargonuz ${h} daha saklanıyor. Süre tekrar uzatılamaz.`,
  },
};

/** What the page knows of the parcel's extension. */
export interface ExtensionState {
  /** Hours the parcel was kept longer; 0 while not extended. */
  extendedHours: number;
  /** The station's one extension, or null when it grants none. */
  extensionHours: number | null;
  /** Whether the parcel is past its (possibly extended) maximum storage. */
  expired: boolean;
}

/**
 * The page's extension section: the offer and its button while the station grants an
 * extension the parcel has not taken, the extension taken once it is, else nothing.
 */
export function extensionSection(lang: Language, path: string, state: ExtensionState): string {
  const t = TEXTS[lang];
  if (state.extendedHours > 0)
    return `<p class="extended" role="status">${escape(t.done(hoursOf(lang, state.extendedHours)))}</p>`;
  if (state.extensionHours === null || state.expired) return '';
  const hours = hoursOf(lang, state.extensionHours);
  return `<form class="extend" method="post" action="${escape(`${path}/extend`)}">
  <p>${escape(t.offer(hours))}</p>
  <button type="submit">${escape(t.button(hours))}</button>
</form>`;
}

const originOf = (url: string | undefined): string | null => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

/**
 * CSRF: the form posts from the page itself. A browser that sends `Sec-Fetch-Site` must
 * say `same-origin`; one that does not, and names an `Origin`, must name this service
 * (PUBLIC_URL, or the Host asked). `Origin: null` is what the page's own `no-referrer`
 * policy makes a browser send on a form post, so it passes only where `Sec-Fetch-Site`
 * is unknown to the browser. A forged post would also need the link's token, the secret.
 */
export function fromThePage(ctx: Context, config: Pick<ServerConfig, 'publicUrl'>): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site) return site === 'same-origin';
  const origin = ctx.get('origin');
  if (!origin || origin === 'null') return true;
  return origin === originOf(config.publicUrl) || origin === `${ctx.protocol}://${ctx.host}`;
}

const CROSS_SITE = [
  ['sq', 'Kjo kërkesë erdhi nga një faqe tjetër dhe u refuzua.'],
  ['sr', 'Ovaj zahtev je došao sa druge stranice i odbijen je.'],
  ['tr', 'Bu istek başka bir siteden geldi ve reddedildi.'],
  ['en', 'This request came from another site and was refused.'],
] as const;

/**
 * `POST /p/:token/extend`: takes the parcel's one extension (`extendStorage`, so the
 * tracking event and the merchant's webhook follow as for a merchant's or an operator's),
 * then sends the browser back to the page (303), which shows the new deadline. A second
 * post (double tap, back button, reload) changes nothing and lands on the same page. A
 * token that finds no parcel awaiting pickup gets the page's own "no longer valid".
 */
export function extendFromPage({ sql, config, nudge }: Services): Middleware {
  return async (ctx) => {
    pageHeaders(ctx);
    if (!fromThePage(ctx, config)) {
      answerPeople(ctx, 403, CROSS_SITE);
      return;
    }
    const { token = '' } = ctx.params as { token?: string };
    const outcome = LINK_TOKEN_PATTERN.test(token)
      ? await extendStorageNow(sql, { recipientLinkHash: linkTokenHash(token) })
      : ({ kind: 'not_found' } as const);
    if (outcome.kind === 'not_found') {
      answerGone(ctx);
      return;
    }
    if (outcome.kind === 'extended') nudge.webhooks();
    // Not extendable (taken already, none granted, expired): the page says how things are.
    ctx.status = 303;
    ctx.redirect(`/p/${token}`);
  };
}
