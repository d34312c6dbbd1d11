import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { KioskState } from '../../bridge/api';
import { CabinetMap } from './CabinetMap';
import { DoneButton } from './DoneButton';
import { Screen } from './Screen';
import { doorStep, type DoorStep, type Stale } from './doorStep';

export interface DoorTexts {
  /** What to do while the door is open. */
  open: string;
  /** After it was closed as expected, and otherwise. */
  done: string;
  amiss: string;
}

/** Seconds a final screen stays before it goes home by itself. */
export const FINAL_SECONDS = 10;

const FINAL: DoorStep[] = ['closed_ok', 'closed_amiss', 'did_not_open', 'cancelled', 'unsettled'];

/**
 * One door at work: which door, where it is in the cabinet, what to do; then how it went.
 * `finish` makes the end a final screen (Done and a countdown); without it the caller's
 * `closedActions` say what comes next (a courier's next parcel).
 */
export function DoorScreen(props: {
  name: string;
  state: KioskState;
  columns: number[][] | null;
  door: number;
  /** The session on screen before this door was asked for: not this person's. */
  stale?: Stale;
  texts: DoorTexts;
  /** Shown while the door is open (cancel a return). */
  openActions?: ReactNode;
  /** Shown once it is closed. */
  closedActions?: ReactNode;
  /** A cancelled return shut on the parcel: keep it as a return, or open again. */
  choiceActions?: ReactNode;
  finish?: () => void;
  /** Above the door number: "2 of 5" for a courier taking parcels out. */
  progress?: string;
  /** Which parcel is behind the door: its tracking number, for a courier taking it out. */
  detail?: string;
}) {
  const { t } = useTranslation();
  const { door, texts, finish } = props;
  const session = props.state.session;
  const step = doorStep(session, door, props.stale);
  const final = FINAL.includes(step);
  // The door stood open before the unlock: said plainly, with who has been told.
  const foundOpen = step !== 'opening' && session?.foundOpen !== undefined;
  const [heading, instruction] = ((): [string, string] => {
    switch (step) {
      case 'opening':
        return [t('door.opening', { door }), texts.open];
      case 'open':
        return foundOpen
          ? [t('supervision.foundOpen', { door }), `${texts.open} ${t('supervision.staffTold')}`]
          : [t('door.open', { door }), texts.open];
      case 'left_open':
        return [
          foundOpen ? t('supervision.foundOpen', { door }) : t('door.open', { door }),
          t('door.leftOpen', { door }),
        ];
      case 'unsettled':
        return [
          t('supervision.unsettledTitle', { door }),
          session?.phase === 'unsettled' && session.cause === 'never_shut'
            ? t('supervision.unsettledOpen', { door })
            : t('supervision.unsettledDone'),
        ];
      case 'did_not_open':
        return [t('door.didNotOpen', { door }), t('help.doorNotOpenReported', { door })];
      case 'closed_ok':
        return [t('final.title'), texts.done];
      case 'closed_amiss':
        return [t('door.closed', { door }), texts.amiss];
      case 'take_out':
        return [t('door.open', { door }), t('return.takeBack')];
      case 'choice':
        return [t('door.closed', { door }), t('return.choice')];
      case 'cancelled':
        return [t('door.closed', { door }), t('return.cancelled')];
      default: {
        const never: never = step;
        throw new Error(`unknown step ${String(never)}`);
      }
    }
  })();
  const actions =
    step === 'choice'
      ? props.choiceActions
      : final
        ? (step === 'closed_ok' || step === 'closed_amiss') && props.closedActions
        : step === 'open' || step === 'left_open'
          ? props.openActions
          : null;
  return (
    <Screen
      name={props.name}
      variant="door"
      heading={heading}
      instruction={instruction}
      info={
        <>
          {props.progress && <p className="progress">{props.progress}</p>}
          {props.detail && <p className="door-detail">{props.detail}</p>}
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
        (actions || (final && finish)) && (
          <>
            {actions}
            {final && finish && <DoneButton seconds={FINAL_SECONDS} onDone={finish} />}
          </>
        )
      }
    />
  );
}
