import type { Context } from 'koa';

// What the recipient's pages share (page.ts, extend.ts): the HTML frame, its headers, and
// the answers that carry no parcel.

export const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

const STYLE = `
  body { font-family: 'DejaVu Sans', system-ui, sans-serif; margin: 0; color: #0b1a2b; background: #fff; }
  main { max-width: 28rem; margin: 0 auto; padding: 1.5rem 1.25rem 2.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 0.25rem; }
  .hello { font-size: 1.1rem; margin: 0 0 1.25rem; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: 0.5rem 1rem; margin: 0 0 1.5rem; font-size: 1.05rem; }
  dt { color: #3f4d5c; }
  dd { margin: 0; font-weight: 600; }
  .extend { margin: 0 0 1.5rem; font-size: 1.05rem; }
  .extend p { margin: 0 0 0.75rem; }
  .extend button { font: inherit; font-weight: 600; width: 100%; min-height: 3rem; padding: 0.75rem 1rem; color: #fff; background: #0a4d8c; border: 0; border-radius: 12px; cursor: pointer; }
  .extend button:focus-visible { outline: 3px solid #0b1a2b; outline-offset: 3px; }
  .extended { margin: 0 0 1.5rem; padding: 0.75rem 1rem; font-size: 1.05rem; border-left: 4px solid #0a4d8c; background: #eef4fa; }
  .code { text-align: center; border: 2px solid #0a4d8c; border-radius: 12px; padding: 1rem; }
  .code h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
  .code svg { width: 15rem; height: 15rem; display: block; margin: 0 auto; }
  .digits { font-size: 2.2rem; font-weight: 700; letter-spacing: 0.15em; margin: 0.5rem 0 0; font-variant-numeric: tabular-nums; }
  .how { font-size: 1.05rem; }
  .support { color: #3f4d5c; }`;

export function page(lang: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${escape(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

/**
 * Never cached, never indexed, no referrer; the CSP allows inline styles, data: images
 * (none yet) and a form posting to this service, nothing else: no script at all.
 */
export function pageHeaders(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
  ctx.type = 'text/html; charset=utf-8';
}

/** A page of one sentence in every language (English last: the page's own language). */
export function answerPeople(
  ctx: Context,
  status: number,
  texts: readonly (readonly [string, string])[],
): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page(
    'en',
    'Parcel locker',
    texts.map(([lang, text]) => `<p lang="${lang}">${escape(text)}</p>`).join('\n'),
  );
}

const GONE = [
  ['sq', 'Kjo lidhje nuk vlen më: pakoja është tërhequr ose nuk pret më.'],
  ['sr', 'Ovaj link više ne važi: paket je preuzet ili više ne čeka.'],
  ['tr', 'Bu bağlantı artık geçerli değil: kargo teslim alındı ya da artık beklemiyor.'],
  ['en', 'This link is no longer valid: the parcel was collected or is no longer waiting.'],
] as const;

/** Any token that opens no parcel awaiting pickup: the same answer, whatever the reason. */
export function answerGone(ctx: Context): void {
  answerPeople(ctx, 404, GONE);
}
