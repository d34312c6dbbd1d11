import type { KioskState, Refusal, SensedDoor, SensorReading } from '../bridge/api';
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { kiosk } from './bridge';
import { DoorGrid } from './DoorGrid';
import { Keypad } from './Keypad';
import { RefusalMessage, isRefusal } from './Message';

export interface ScreenProps {
  state: KioskState;
  home: () => void;
}

/** What the customer is told while their door is open, and after it closed. */
/** What a door should hold once shut, and what to tell either way. */
interface DoorOutcome {
  expect: 'item' | 'empty';
  done: string;
  amiss: string;
}

function DoorProgress({
  state,
  door,
  openText,
  outcome,
}: {
  state: KioskState;
  door: number;
  openText: string;
  outcome: DoorOutcome;
}) {
  const { t } = useTranslation();
  const session = state.session?.door === door ? state.session : null;
  // The core judges the sensors against what the door should hold.
  const closed = session?.phase === 'closed' || session?.phase === 'reported';
  const asExpected = closed && session.asExpected;
  const title = !closed
    ? t('door.open', { door })
    : asExpected
      ? t('done')
      : t('door.closed', { door });
  return (
    <section className="door-progress" aria-live="polite">
      <h2 className={`door-open-title${closed && !asExpected ? ' door-title-amiss' : ''}`}>
        {title}
      </h2>
      <p className="instruction">
        {closed
          ? asExpected
            ? outcome.done
            : outcome.amiss
          : session?.phase === 'left_open'
            ? t('door.leftOpen', { door })
            : openText}
      </p>
      <DoorGrid cabinet={state.cabinet} highlight={door} />
    </section>
  );
}

/** The screen every entry shares: a heading, a hint, what went wrong, the keypad, buttons. */
function KeypadEntry(props: {
  title: string;
  hint?: string;
  message?: ReactNode;
  keypad: Omit<Parameters<typeof Keypad>[0], 'label'>;
  children: ReactNode;
}) {
  return (
    <section>
      <h2>{props.title}</h2>
      {props.hint && <p className="hint">{props.hint}</p>}
      {props.message}
      <Keypad {...props.keypad} label={props.hint ?? props.title} />
      {props.children}
    </section>
  );
}

function BackButton({ onClick }: { onClick: () => void }) {
  const { t } = useTranslation();
  return (
    <button type="button" className="secondary" onClick={onClick}>
      {t('keypad.back')}
    </button>
  );
}

export function PickupScreen({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [door, setDoor] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const submit = async () => {
    setBusy(true);
    setRefusal(null);
    const answer = await kiosk.pickup(code).catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    setCode('');
    if (isRefusal(answer)) setRefusal(answer);
    else setDoor(answer.door);
  };
  if (door !== null) {
    return (
      <DoorProgress
        state={state}
        door={door}
        openText={t('pickup.take')}
        outcome={{ expect: 'empty', done: t('pickup.thanks'), amiss: t('pickup.leftInside') }}
      />
    );
  }
  return (
    <KeypadEntry
      title={t('pickup.title')}
      hint={t('pickup.hint')}
      message={
        refusal && (
          <RefusalMessage refusal={refusal} supportPhone={state.config?.support_phone ?? ''} />
        )
      }
      keypad={{
        value: code,
        onChange: setCode,
        onSubmit: () => void submit(),
        maxLength: 10,
        busy,
      }}
    >
      <BackButton onClick={home} />
    </KeypadEntry>
  );
}

/** The courier takes the waiting returns out, door after door, as the core opens them. */
function CollectReturns({
  state,
  courierNo,
  done,
}: {
  state: KioskState;
  courierNo: string;
  done: () => void;
}) {
  const { t } = useTranslation();
  const [count, setCount] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [seen, setSeen] = useState(false);
  const session = state.session?.kind === 'collect' ? state.session : null;
  useEffect(() => {
    if (session) setSeen(true);
  }, [session]);
  useEffect(() => {
    void kiosk
      .collectReturns(courierNo)
      .catch((): Refusal => ({ kind: 'unavailable' }))
      .then((answer) =>
        answer.kind === 'collecting' ? setCount(answer.count) : setRefusal(answer),
      );
  }, [courierNo]);
  const finished = count === 0 || (seen && !session);
  return (
    <section>
      {refusal && (
        <RefusalMessage refusal={refusal} supportPhone={state.config?.support_phone ?? ''} />
      )}
      {session && (
        <DoorProgress
          state={state}
          door={session.door}
          openText={t('courier.collectTake')}
          outcome={{
            expect: 'empty',
            done: t('courier.collectTaken'),
            amiss: t('courier.collectLeft'),
          }}
        />
      )}
      {finished && (
        <p className="instruction">
          {count === 0 ? t('courier.collectNone') : t('courier.collectDone')}
        </p>
      )}
      {(finished || refusal) && (
        <button type="button" className="primary" onClick={done}>
          {t('done')}
        </button>
      )}
    </section>
  );
}

export function CourierScreen({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const [courierNo, setCourierNo] = useState('');
  const [courier, setCourier] = useState<{ no: string; name: string } | null>(null);
  const [tracking, setTracking] = useState('');
  const [door, setDoor] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<Refusal | { kind: 'unknown' } | null>(null);
  const [busy, setBusy] = useState(false);
  const [collecting, setCollecting] = useState(false);
  const phone = state.config?.support_phone ?? '';
  const message =
    refusal?.kind === 'unknown' ? (
      <p className="message message-error" role="alert">
        {t('courier.unknown')}
      </p>
    ) : (
      refusal && <RefusalMessage refusal={refusal} supportPhone={phone} />
    );

  const verify = async () => {
    setBusy(true);
    const answer = await kiosk
      .verifyCourier(courierNo)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    if (answer.kind === 'verified') {
      setCourier({ no: courierNo, name: answer.courierName });
      setRefusal(null);
    } else {
      setRefusal(answer);
      setCourierNo('');
    }
  };
  const deposit = async () => {
    if (!courier) return;
    setBusy(true);
    setRefusal(null);
    const answer = await kiosk
      .deposit(courier.no, tracking)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    setTracking('');
    if (isRefusal(answer)) setRefusal(answer);
    else setDoor(answer.door);
  };

  if (!courier) {
    return (
      <KeypadEntry
        title={t('courier.title')}
        message={message}
        keypad={{
          value: courierNo,
          onChange: setCourierNo,
          onSubmit: () => void verify(),
          maxLength: 20,
          busy,
          acceptLetters: true,
        }}
      >
        <BackButton onClick={home} />
      </KeypadEntry>
    );
  }
  if (collecting) {
    return (
      <CollectReturns state={state} courierNo={courier.no} done={() => setCollecting(false)} />
    );
  }
  if (door !== null) {
    return (
      <section>
        <DoorProgress
          state={state}
          door={door}
          openText={t('courier.put')}
          outcome={{
            expect: 'item',
            done: t('courier.deposited'),
            amiss: t('courier.shutEmpty'),
          }}
        />
        <div className="actions">
          <button type="button" className="primary" onClick={() => setDoor(null)}>
            {t('courier.next')}
          </button>
          <button type="button" className="secondary" onClick={home}>
            {t('courier.finish')}
          </button>
        </div>
      </section>
    );
  }
  return (
    <KeypadEntry
      title={t('courier.hello', { name: courier.name })}
      hint={t('courier.scan')}
      message={message}
      keypad={{
        value: tracking,
        onChange: setTracking,
        onSubmit: () => void deposit(),
        maxLength: 20,
        busy,
        acceptLetters: true,
      }}
    >
      <div className="actions">
        <button type="button" className="secondary" onClick={() => setCollecting(true)}>
          {t('courier.collect')}
        </button>
        <button type="button" className="secondary" onClick={home}>
          {t('courier.finish')}
        </button>
      </div>
    </KeypadEntry>
  );
}

export function ReturnScreen({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const [tracking, setTracking] = useState('');
  const [door, setDoor] = useState<number | null>(null);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [cancelled, setCancelled] = useState(false);
  const [busy, setBusy] = useState(false);
  const start = async () => {
    setBusy(true);
    setRefusal(null);
    const answer = await kiosk
      .startReturn(tracking)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    setTracking('');
    if (isRefusal(answer)) setRefusal(answer);
    else setDoor(answer.door);
  };
  if (cancelled) {
    return (
      <section>
        <p className="instruction">{t('return.cancelled')}</p>
        <button type="button" className="primary" onClick={home}>
          {t('done')}
        </button>
      </section>
    );
  }
  if (door !== null) {
    const closed =
      state.session?.door === door &&
      (state.session.phase === 'closed' || state.session.phase === 'reported');
    return (
      <section>
        <DoorProgress
          state={state}
          door={door}
          openText={t('return.put')}
          outcome={{ expect: 'item', done: t('return.thanks'), amiss: t('return.empty') }}
        />
        {!closed && (
          <button
            type="button"
            className="secondary"
            onClick={() => void kiosk.cancelReturn().then(() => setCancelled(true))}
          >
            {t('return.cancel')}
          </button>
        )}
      </section>
    );
  }
  return (
    <KeypadEntry
      title={t('return.title')}
      message={
        refusal && (
          <RefusalMessage refusal={refusal} supportPhone={state.config?.support_phone ?? ''} />
        )
      }
      keypad={{
        value: tracking,
        onChange: setTracking,
        onSubmit: () => void start(),
        maxLength: 20,
        busy,
        acceptLetters: true,
      }}
    >
      <BackButton onClick={home} />
    </KeypadEntry>
  );
}

const SENSOR_POLL_MS = 2000;

/** The board's reading, refreshed while the maintenance view is shown. */
function useSensorReading(): SensorReading | null {
  const [reading, setReading] = useState<SensorReading | null>(null);
  useEffect(() => {
    let shown = true;
    const read = () =>
      void kiosk
        .readSensors()
        .catch((): SensorReading => ({ kind: 'board_unreachable' }))
        .then((next) => shown && setReading(next));
    read();
    const timer = setInterval(read, SENSOR_POLL_MS);
    return () => {
      shown = false;
      clearInterval(timer);
    };
  }, []);
  return reading;
}

type CabinetDoor = NonNullable<KioskState['cabinet']>['doors'][number];

/** Where the service and the sensors disagree, which a technician must look at. */
function mismatch(door: CabinetDoor, sensed: SensedDoor): 'mismatchItem' | 'mismatchEmpty' | null {
  if (!sensed.known) return null;
  if (door.status === 'available' && sensed.itemPresent) return 'mismatchItem';
  if (door.parcel && sensed.closed && !sensed.itemPresent) return 'mismatchEmpty';
  return null;
}

function SensorTable({ state, reading }: { state: KioskState; reading: SensorReading | null }) {
  const { t } = useTranslation();
  if (!reading || !state.cabinet) return null;
  if (reading.kind === 'board_unreachable') {
    return (
      <p className="message message-error" role="alert">
        {t('maintenance.unreachable')}
      </p>
    );
  }
  const sensed = new Map(reading.doors.map((door) => [door.position, door]));
  return (
    <table className="sensors">
      <caption>{t('maintenance.sensors')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('maintenance.door')}</th>
          <th scope="col">{t('maintenance.service')}</th>
          <th scope="col">{t('maintenance.lock')}</th>
          <th scope="col">{t('maintenance.content')}</th>
          <th scope="col">{t('maintenance.check')}</th>
        </tr>
      </thead>
      <tbody>
        {state.cabinet.doors.map((door) => {
          const reading = sensed.get(door.position);
          const sensors = reading?.known ? reading : undefined;
          const warning = reading && mismatch(door, reading);
          return (
            <tr key={door.position} className={warning ? 'sensor-mismatch' : undefined}>
              <th scope="row">{door.position}</th>
              <td>{t(`grid.${door.status}`)}</td>
              <td>
                {sensors ? t(sensors.closed ? 'maintenance.closed' : 'maintenance.open') : '—'}
              </td>
              <td>
                {sensors ? t(sensors.itemPresent ? 'maintenance.item' : 'maintenance.empty') : '—'}
              </td>
              <td>{warning ? t(`maintenance.${warning}`) : ''}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/**
 * For technicians: the service's view of every door beside what the sensors read, and
 * the offline queue. It opens nothing: doors are opened on site with `lockctl`.
 */
export function MaintenanceScreen({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  const reading = useSensorReading();
  return (
    <section>
      <h2>{t('maintenance.title')}</h2>
      <ul className="maintenance-status">
        <li>{t('maintenance.station', { code: state.config?.station_code ?? '—' })}</li>
        <li>
          {t(
            state.condition === 'service_unreachable' || state.condition === 'terminal_refused'
              ? 'maintenance.offline'
              : 'maintenance.online',
          )}
        </li>
        <li>{t('maintenance.queue', { count: state.pendingConfirms })}</li>
        <li>{t('maintenance.stuck', { count: state.stuckConfirms })}</li>
      </ul>
      <DoorGrid cabinet={state.cabinet} />
      <SensorTable state={state} reading={reading} />
      <button type="button" className="secondary" onClick={home}>
        {t('keypad.back')}
      </button>
    </section>
  );
}
