import type { EnrolmentCode } from '@locker/shared';
import { useTranslation } from 'react-i18next';
import { useConsole } from '../context';
import { exactTime } from '../format';

/** The code's digits in the groups the kiosk's keypad shows them in (4-4-2). */
export function enrolmentGroups(code: string): string[] {
  const digits = code.replace(/\D/g, '');
  return [digits.slice(0, 4), digits.slice(4, 8), digits.slice(8)].filter(Boolean);
}

/**
 * A terminal's one-time enrolment code, shown once: the digits grouped as the kiosk's
 * keypad shows them, the expiry in the operator's zone, the QR code (the server's SVG,
 * drawn as an image so nothing in it runs) and what the technician does with it.
 */
export function EnrolmentCard({
  station,
  enrolment,
  replaced = false,
}: {
  station: string;
  enrolment: EnrolmentCode;
  replaced?: boolean;
}) {
  const { t, i18n } = useTranslation();
  const { zone } = useConsole();
  const groups = enrolmentGroups(enrolment.code);
  const label = t('terminals.enrolmentCode', { station });
  return (
    <div className="note secret enrolment" role="group" aria-label={label}>
      <p className="strong">{label}</p>
      <div className="qr">
        <img
          src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qr_svg)}`}
          width={168}
          height={168}
          alt={t('terminals.enrolmentQr', { station })}
        />
        <div>
          <p>
            <code className="secret-value enrolment-code" data-testid="enrolment-code">
              {groups.join('\u2002')}
            </code>
          </p>
          <p>
            {t('terminals.enrolmentExpires', {
              at: exactTime(enrolment.expires_at, zone, i18n.language),
              zone,
            })}
          </p>
          <p>{t('terminals.enrolmentHow')}</p>
          {replaced && <p>{t('terminals.enrolmentReplaced')}</p>}
          <p>{t('common.shownOnce')}</p>
        </div>
      </div>
    </div>
  );
}
