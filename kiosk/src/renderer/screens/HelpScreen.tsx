import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { BackButton } from '../parts/BackButton';
import { QrCode } from '../parts/QrCode';
import { Screen } from '../parts/Screen';

type Topic = 'doorNotOpen' | 'doorWontClose' | 'notInside';
const TOPICS: Topic[] = ['doorNotOpen', 'doorWontClose', 'notInside'];
const ADVICE = {
  doorNotOpen: 'help.doorNotOpenAdvice',
  doorWontClose: 'help.doorWontCloseAdvice',
  notInside: 'help.notInsideAdvice',
} as const satisfies Record<Topic, string>;

/** Support's number, and as a QR code a phone turns into a call. */
function SupportContact({ phone }: { phone: string }) {
  const { t } = useTranslation();
  if (!phone) return null;
  return (
    <div className="support-contact">
      <QrCode phone={phone} label={t('help.qr')} />
      <p className="support-phone">{t('help.phone', { phone })}</p>
    </div>
  );
}

/**
 * Help, from every screen: the support phone and a QR code of it, and the three things
 * that go wrong at a locker, each with what to do. Closing it returns to the screen as
 * it was, typed digits included.
 */
export function HelpScreen({
  phone,
  close,
  openService,
  reportDoor,
}: {
  phone: string;
  close: () => void;
  /** For technicians: the service menu, behind its PIN. */
  openService: () => void;
  /** The door this person was using, and how to report it; absent when there is none. */
  reportDoor?: { door: number; report: () => Promise<void> };
}) {
  const { t } = useTranslation();
  const [topic, setTopic] = useState<Topic | null>(null);
  const [reported, setReported] = useState(false);
  if (topic) {
    const report = topic !== 'notInside' ? reportDoor : undefined;
    return (
      <Screen
        name="help-topic"
        heading={t(`help.${topic}`)}
        instruction={
          reported && report ? t('help.reported', { door: report.door }) : t(ADVICE[topic])
        }
        info={<SupportContact phone={phone} />}
        help={false}
        actions={
          <>
            <BackButton onClick={() => setTopic(null)} />
            {report && !reported && (
              <button
                type="button"
                className="primary"
                onClick={() => void report.report().then(() => setReported(true))}
              >
                {t('help.report', { door: report.door })}
              </button>
            )}
          </>
        }
      />
    );
  }
  return (
    <Screen
      name="help"
      heading={t('help.title')}
      instruction={t('help.instruction')}
      info={<SupportContact phone={phone} />}
      help={false}
      actions={
        <>
          <BackButton onClick={close} />
          <button type="button" className="secondary service-entry" onClick={openService}>
            {t('service.open')}
          </button>
        </>
      }
      main={
        <div className="help-topics">
          {TOPICS.map((item) => (
            <button
              key={item}
              type="button"
              className="big big-quiet"
              onClick={() => setTopic(item)}
            >
              {t(`help.${item}`)}
            </button>
          ))}
        </div>
      }
    />
  );
}
