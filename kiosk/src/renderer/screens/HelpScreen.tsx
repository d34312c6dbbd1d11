import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DoorProblem, DoorProblemResult } from '../../bridge/api';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { QrCode } from '../parts/QrCode';
import { Screen, type ScreenMessage } from '../parts/Screen';

type Topic = 'doorNotOpen' | 'doorWontClose' | 'notInside';
const TOPICS: Topic[] = ['doorNotOpen', 'doorWontClose', 'notInside'];
/** The report each topic leads to; a parcel not inside has none (advice only). */
const PROBLEM: Record<Topic, DoorProblem | null> = {
  doorNotOpen: 'did_not_open',
  doorWontClose: 'will_not_close',
  notInside: null,
};
/** What to do once the door was reported. */
const NEXT = {
  doorNotOpen: 'help.doorNotOpenNext',
  doorWontClose: 'help.doorWontCloseNext',
  notInside: 'help.notInsideNext',
} as const satisfies Record<Topic, string>;
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

/** What to say once a door was reported: whether it got through, then what to do next. */
function useReportTexts(
  topic: Topic,
  result: DoorProblemResult | null,
): { instruction: string; message: ScreenMessage | null } {
  const { t } = useTranslation();
  const next = t(NEXT[topic]);
  if (!result) return { instruction: t(ADVICE[topic]), message: null };
  switch (result.kind) {
    case 'no_door':
      return { instruction: t(ADVICE[topic]), message: null };
    case 'sent':
      return {
        instruction: next,
        message: { text: t('help.reportedSent', { door: result.door }), tone: 'success' },
      };
    case 'queued':
      return {
        instruction: next,
        message: { text: t('help.reportedQueued', { door: result.door }), tone: 'info' },
      };
    case 'already_reported':
      return { instruction: t('help.doorNotOpenReported', { door: result.door }), message: null };
    case 'unavailable':
      return {
        instruction: t(ADVICE[topic]),
        message: { text: t('errors.unavailable'), tone: 'error' },
      };
    default: {
      const never: never = result;
      throw new Error(`unknown report result ${String(never)}`);
    }
  }
}

/**
 * Help, from every screen: the support phone and a QR code of it, and the three things
 * that go wrong at a locker. A door that did not open or will not close is reported (the
 * door this person used: it leaves service and an operator is alerted), and the person
 * is told whether the report got through or waits for the connection, and what to do
 * next. A parcel not inside has no report of its own: the advice is to call support.
 * Closing help returns to the screen as it was, typed digits included.
 */
export function HelpScreen({
  phone,
  close,
  door,
}: {
  phone: string;
  close: () => void;
  /** The door this person used on this visit; null when none (advice only). */
  door: number | null;
}) {
  const { t } = useTranslation();
  const [topic, setTopic] = useState<Topic | null>(null);
  const [result, setResult] = useState<DoorProblemResult | null>(null);
  const [busy, setBusy] = useState(false);
  const texts = useReportTexts(topic ?? 'notInside', result);
  if (topic) {
    const problem = PROBLEM[topic];
    const report = async () => {
      if (!problem) return;
      setBusy(true);
      const answer = await kiosk
        .reportDoorProblem(problem)
        .catch((): DoorProblemResult => ({ kind: 'unavailable' }));
      setBusy(false);
      setResult(answer);
    };
    return (
      <Screen
        name="help-topic"
        heading={t(`help.${topic}`)}
        instruction={texts.instruction}
        message={texts.message}
        info={<SupportContact phone={phone} />}
        help={false}
        actions={
          <>
            <BackButton
              onClick={() => {
                setTopic(null);
                setResult(null);
              }}
            />
            {problem && door !== null && (result === null || result.kind === 'unavailable') && (
              <button
                type="button"
                className="primary"
                disabled={busy}
                onClick={() => void report()}
              >
                {t('help.report', { door })}
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
      actions={<BackButton onClick={close} />}
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
