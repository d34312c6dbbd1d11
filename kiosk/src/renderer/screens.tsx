import type { KioskState, Refusal } from '../bridge/api';
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
function DoorProgress({
  state,
  door,
  openText,
  doneText,
}: {
  state: KioskState;
  door: number;
  openText: string;
  doneText: (itemPresent: boolean) => string;
}) {
  const { t } = useTranslation();
  const session = state.session?.door === door ? state.session : null;
  const closed = session?.phase === 'closed';
  return (
    <section className="door-progress" aria-live="polite">
      <h2 className="door-open-title">{closed ? t('done') : t('door.open', { door })}</h2>
      <p className="instruction">
        {closed
          ? doneText(Boolean(session.itemPresent))
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
        doneText={(item) => (item ? t('pickup.leftInside') : t('pickup.thanks'))}
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
          doneText={() => t('courier.collectTake')}
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
          doneText={(itemPresent) =>
            itemPresent ? t('courier.deposited') : t('courier.shutEmpty')
          }
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
    const closed = state.session?.door === door && state.session.phase === 'closed';
    return (
      <section>
        <DoorProgress
          state={state}
          door={door}
          openText={t('return.put')}
          doneText={(item) => (item ? t('return.thanks') : t('return.empty'))}
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

/** For technicians: every door's status, and the offline queue. */
export function MaintenanceScreen({ state, home }: ScreenProps) {
  const { t } = useTranslation();
  return (
    <section>
      <h2>{t('grid.title')}</h2>
      <p className="hint">
        {state.cabinet?.station.code} · queue {state.pendingConfirms} · stuck {state.stuckConfirms}
      </p>
      <DoorGrid cabinet={state.cabinet} />
      <button type="button" className="secondary" onClick={home}>
        {t('keypad.back')}
      </button>
    </section>
  );
}
