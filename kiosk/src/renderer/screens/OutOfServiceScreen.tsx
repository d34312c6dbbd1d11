import { useTranslation } from 'react-i18next';
import { QrCode } from '../parts/QrCode';
import { Screen } from '../parts/Screen';
import { reasonKey } from '../kioskView';

export type OutOfServiceReason =
  'service_unreachable' | 'terminal_refused' | 'controller_unreachable' | 'doors_untrusted';

/**
 * One calm screen while the locker cannot serve anyone: the parcels are safe, here is
 * support (large, to be called or scanned: the other half of a landscape screen). Nothing
 * that cannot work is offered; it clears itself when the cause clears.
 */
export function OutOfServiceScreen({
  reason,
  phone,
}: {
  reason: OutOfServiceReason;
  phone: string;
}) {
  const { t } = useTranslation();
  return (
    <Screen
      name="out-of-service"
      heading={t('outOfService.title')}
      instruction={t('outOfService.safe')}
      info={<p className="reason">{t(reasonKey(reason))}</p>}
      main={
        phone && (
          <div className="support-contact support-contact-large">
            <QrCode phone={phone} label={t('help.qr')} />
            <p className="support-phone">{t('help.phone', { phone })}</p>
          </div>
        )
      }
    />
  );
}
