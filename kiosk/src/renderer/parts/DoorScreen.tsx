import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { KioskState } from '../../bridge/api';
import { CabinetMap } from './CabinetMap';
import { Countdown } from './Countdown';
import { Screen } from './Screen';
import { doorStep, type Expect } from './doorStep';

export interface DoorTexts {
  /** What to do while the door is open. */
  open: string;
  /** After it was closed as expected, and otherwise. */
  done: string;
  amiss: string;
}

/** Seconds a final screen stays before it goes home by itself. */
export const FINAL_SECONDS = 10;

/**
 * One door at work: which door, where it is in the cabinet, what to do; then how it went.
 * `finish` makes the closed door a final screen (Done and a countdown); without it the
 * caller's `actions` say what comes next (a courier's next parcel).
 */
export function DoorScreen(props: {
  name: string;
  state: KioskState;
  columns: number[][] | null;
  door: number;
  expect: Expect;
  texts: DoorTexts;
  /** Shown while the door is open (cancel a return). */
  openActions?: ReactNode;
  /** Shown once it is closed. */
  closedActions?: ReactNode;
  finish?: () => void;
  /** Above the door number: "2 of 5" for a courier taking parcels out. */
  progress?: string;
}) {
  const { t } = useTranslation();
  const { door, texts } = props;
  const step = doorStep(props.state.session, door, props.expect);
  const closed = step === 'closed_ok' || step === 'closed_amiss';
  const heading =
    step === 'opening'
      ? t('door.opening', { door })
      : step === 'closed_ok'
        ? t('done')
        : step === 'closed_amiss'
          ? t('door.closed', { door })
          : t('door.open', { door });
  const instruction =
    step === 'closed_ok'
      ? texts.done
      : step === 'closed_amiss'
        ? texts.amiss
        : step === 'left_open'
          ? t('door.leftOpen', { door })
          : texts.open;
  const finish = props.finish;
  return (
    <Screen
      name={props.name}
      variant="door"
      heading={heading}
      instruction={instruction}
      info={
        <>
          {props.progress && <p className="progress">{props.progress}</p>}
          {closed && finish && <Countdown seconds={FINAL_SECONDS} onEnd={finish} />}
        </>
      }
      centre={
        <p className={`door-number door-${step}`} aria-hidden="true">
          <span className="door-number-label">{t('door.number')}</span>
          <span className="door-number-value">{door}</span>
        </p>
      }
      main={
        <CabinetMap
          cabinet={props.state.cabinet}
          columns={props.columns}
          highlight={door}
          label={t('door.map', { door })}
        />
      }
      actions={
        closed ? (
          <>
            {props.closedActions}
            {finish && (
              <button type="button" className="primary" onClick={finish}>
                {t('done')}
              </button>
            )}
          </>
        ) : (
          props.openActions
        )
      }
    />
  );
}
