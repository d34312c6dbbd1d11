import { useTranslation } from 'react-i18next';
import { QrCode } from '../parts/QrCode';
import { Screen } from '../parts/Screen';

export type OutOfServiceReason =
  'service_unreachable' | 'terminal_refused' | 'controller_unreachable' | 'doors_untrusted';

/**
 * One calm screen while the locker cannot serve anyone: the parcels are safe, here is
 * support. Nothing that cannot work is offered; it clears itself when the cause clears.
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
      help={false}
      info={
        <>
          <p className="reason">
            {reason === 'doors_untrusted'
              ? t('supervision.untrusted')
              : t(`outOfService.${reason}`)}
          </p>
          {phone && (
            <div className="support-contact">
              <QrCode phone={phone} label={t('help.qr')} />
              <p className="support-phone">{t('help.phone', { phone })}</p>
            </div>
          )}
        </>
      }
    />
  );
}
