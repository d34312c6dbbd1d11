import Router from '@koa/router';
import type { Language, Size } from '@locker/shared';
import type { Middleware } from 'koa';
import QRCode from 'qrcode';
import type { ServerConfig } from '../config';
import { firstNameOf } from '../domain/people';
import { LINK_TOKEN_PATTERN, linkTokenHash, openCode } from '../domain/recipientLink';
import type { Services } from '../services';
import { extendFromPage, extensionSection } from './extend';
import { answerGone, escape, page, pageHeaders } from './html';
import { recipientRateLimit } from './rateLimit';
import { fullDateTimeFormat } from '../domain/intl';

// The recipient's page (docs/decisions.md, "Pickup without typing"): the pickup SMS links
// here. No login: the link is the key, unguessable, and it dies with the parcel's code.
// In the recipient's language: which locker, until when, the door's size, and the pickup
// code as a QR code the kiosk's camera reads, and the parcel's one storage extension
// (extend.ts). Never cached, never indexed, no referrer; the request log never shows the
// token (http/requestLog.ts).

/** The page's address for a link token, under PUBLIC_URL. */
export function recipientPageUrl(config: Pick<ServerConfig, 'publicUrl'>, token: string): string {
  return `${config.publicUrl ?? 'http://localhost:8080'}/p/${token}`;
}

interface PageTexts {
  title: string;
  hello: (name: string) => string;
  locker: string;
  freeUntil: string;
  collectBy: string;
  doorSize: string;
  sizes: Record<Size, string>;
  code: string;
  how: string;
  support: (phone: string) => string;
}

const TEXTS: Record<Language, PageTexts> = {
  en: {
    title: 'Your parcel is waiting',
    hello: (name) => `Hello ${name}`,
    locker: 'Parcel locker',
    freeUntil: 'Free storage until',
    collectBy: 'Collect by',
    doorSize: 'Door size',
    sizes: { S: 'small (S)', M: 'medium (M)', L: 'large (L)', XL: 'extra large (XL)' },
    code: 'Pickup code',
    how: 'At the locker, choose “Pick up a parcel” and hold this QR code up to the camera, or type the code.',
    support: (phone) => `Support: ${phone}`,
  },
  sq: {
    title: 'Pakoja juaj ju pret',
    hello: (name) => `Përshëndetje ${name}`,
    locker: 'Stacioni i pakove',
    freeUntil: 'Ruajtje falas deri më',
    collectBy: 'Tërhiqeni deri më',
    doorSize: 'Madhësia e derës',
    sizes: { S: 'e vogël (S)', M: 'e mesme (M)', L: 'e madhe (L)', XL: 'shumë e madhe (XL)' },
    code: 'Kodi i tërheqjes',
    how: 'Te stacioni zgjidhni “Merr një pako” dhe mbajeni këtë kod QR para kamerës, ose shkruani kodin.',
    support: (phone) => `Mbështetja: ${phone}`,
  },
  sr: {
    title: 'Vaš paket Vas čeka',
    hello: (name) => `Zdravo ${name}`,
    locker: 'Paketomat',
    freeUntil: 'Besplatno čuvanje do',
    collectBy: 'Preuzmite do',
    doorSize: 'Veličina vrata',
    sizes: { S: 'mala (S)', M: 'srednja (M)', L: 'velika (L)', XL: 'vrlo velika (XL)' },
    code: 'Kod za preuzimanje',
    how: 'Na paketomatu izaberite „Preuzmi paket” i prinesite ovaj QR kod kameri, ili ukucajte kod.',
    support: (phone) => `Podrška: ${phone}`,
  },
  tr: {
    title: 'Kargonuz sizi bekliyor',
    hello: (name) => `Merhaba ${name}`,
    locker: 'Kargo dolabı',
    freeUntil: 'Ücretsiz saklama bitişi',
    collectBy: 'Son teslim alma',
    doorSize: 'Bölme boyutu',
    sizes: { S: 'küçük (S)', M: 'orta (M)', L: 'büyük (L)', XL: 'çok büyük (XL)' },
    code: 'Teslim alma kodu',
    how: 'Dolapta “Kargo teslim al” seçeneğini seçin ve bu QR kodu kameraya gösterin ya da kodu yazın.',
    support: (phone) => `Destek: ${phone}`,
  },
};

interface Row {
  recipient_name: string;
  recipient_language: Language;
  parcel_size: Size;
  door_size: Size | null;
  sealed: Buffer;
  station_name: string;
  station_code: string;
  support_phone: string;
  free_until: Date;
  collect_by: Date;
  extended_hours: number;
  extension_hours: number | null;
  expired: boolean;
}

/** `GET /p/:token`: the recipient's page, or a page saying the link is no longer valid. */
function recipientPage({ sql }: Services): Middleware {
  return async (ctx) => {
    pageHeaders(ctx);
    const { token = '' } = ctx.params as { token?: string };
    const [row] = LINK_TOKEN_PATTERN.test(token)
      ? await sql<Row[]>`
          select sh.recipient_name, sh.recipient_language, sh.parcel_size, d.size as door_size,
                 sh.pickup_code_sealed as sealed, s.name as station_name, s.code as station_code,
                 s.support_phone,
                 greatest(sh.deposited_at, sh.created_at) + make_interval(hours => s.free_storage_hours + sh.storage_extended_hours) as free_until,
                 sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours) as collect_by,
                 sh.storage_extended_hours as extended_hours, s.storage_extension_hours as extension_hours,
                 now() >= sh.deposited_at + make_interval(hours => s.max_storage_hours + sh.storage_extended_hours) as expired
            from shipments sh
            join stations s on s.id = sh.destination_station_id
            left join door_occupancy o on o.shipment_id = sh.id and o.kind = 'delivery'
            left join doors d on d.id = o.door_id
           where sh.recipient_link_hash = ${linkTokenHash(token)}
             and sh.status = 'ready_for_pickup' and sh.pickup_code_sealed is not null`
      : [];
    const code = row && openCode(token, row.sealed);
    if (!row || !code) {
      answerGone(ctx);
      return;
    }
    const lang = row.recipient_language;
    const t = TEXTS[lang];
    // Serbian in Latin script, as the page's texts (Intl's plain `sr` is Cyrillic).
    const locale = lang === 'sr' ? 'sr-Latn' : lang;
    const when = fullDateTimeFormat(locale);
    const qr = await QRCode.toString(code, {
      type: 'svg',
      errorCorrectionLevel: 'M',
      margin: 4,
      color: { dark: '#000000', light: '#ffffff' },
    });
    const size = row.door_size ?? row.parcel_size;
    ctx.body = page(
      lang,
      t.title,
      `<h1>${escape(t.title)}</h1>
<p class="hello">${escape(t.hello(firstNameOf(row.recipient_name)))}</p>
<dl>
  <dt>${escape(t.locker)}</dt><dd>${escape(row.station_name)} (${escape(row.station_code)})</dd>
  <dt>${escape(t.freeUntil)}</dt><dd>${escape(when.format(row.free_until))}</dd>
  <dt>${escape(t.collectBy)}</dt><dd>${escape(when.format(row.collect_by))}</dd>
  <dt>${escape(t.doorSize)}</dt><dd>${escape(t.sizes[size])}</dd>
</dl>
${extensionSection(lang, `/p/${token}`, {
  extendedHours: row.extended_hours,
  extensionHours: row.extension_hours,
  expired: row.expired,
})}
<section class="code" aria-label="${escape(t.code)}">
  <h2>${escape(t.code)}</h2>
  <div role="img" aria-label="${escape(`${t.code}: QR`)}">${qr}</div>
  <p class="digits">${escape(`${code.slice(0, 4)} ${code.slice(4)}`)}</p>
</section>
<p class="how">${escape(t.how)}</p>
<p class="support">${escape(t.support(row.support_phone))}</p>`,
    );
  };
}

/** The recipients' pages, outside both interfaces: no credential but the link itself. */
export function recipientRouter(services: Services): Router {
  const router = new Router();
  const limit = recipientRateLimit(services);
  router.get('/p/:token', limit, recipientPage(services));
  router.post('/p/:token/extend', limit, extendFromPage(services));
  return router;
}
