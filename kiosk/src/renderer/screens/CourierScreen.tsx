import { workingAlone } from '../kioskView';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../../bridge/api';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { DoorScreen } from '../parts/DoorScreen';
import { staleOf, type Stale } from '../parts/doorStep';
import { Keypad } from '../parts/Keypad';
import { Screen } from '../parts/Screen';
import { isRefusal, useRefusal } from '../parts/useRefusal';
import { CollectScreen } from './CollectScreen';
import { FreeDoors } from './FreeDoors';
import { OverflowScreen } from './OverflowScreen';
import { SharedDoorQuestion } from './SharedDoorQuestion';
import type { ScreenProps } from './props';
import { TRACKING_MAX, TRACKING_MIN } from './ReturnScreen';

const COURIER_MIN = 4;

/** Bystanders read the screen too: a courier is greeted by first name only. */
export function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] ?? '';
}

export function CourierScreen(props: ScreenProps) {
  const { state, columns, home, back } = props;
  const { t } = useTranslation();
  const [courierNo, setCourierNo] = useState('');
  const [courier, setCourier] = useState<{
    no: string;
    name: string;
    toTakeOut: number | null;
  } | null>(null);
  const [tracking, setTracking] = useState('');
  const [opened, setOpened] = useState<{ door: number; stale: Stale; shared?: true } | null>(null);
  // Issue 27: the door of this visit's latest parcel, and the question of sharing it.
  const [lastDoor, setLastDoor] = useState<number | null>(null);
  const [asking, setAsking] = useState<{ door: number; tracking: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [collecting, setCollecting] = useState(false);
  /** The parcel this full locker cannot take, while the courier chooses where it goes. */
  // A full locker (online): the parcel and the size no door was free for.
  const [overflow, setOverflow] = useState<{ tracking: string; size: string | null } | null>(null);
  const refusal = useRefusal('courier', state);

  const verify = async () => {
    setBusy(true);
    const answer = await kiosk
      .verifyCourier(courierNo)
      .catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    if (answer.kind === 'verified') {
      setCourier({
        no: courierNo,
        name: firstName(answer.courierName),
        toTakeOut: answer.toTakeOut,
      });
      refusal.clear();
    } else refusal.refuse(answer.kind === 'unknown' ? { kind: 'unknown_courier' } : answer);
  };
  /** A door of its own, or (`door`) the door of the visit's previous parcel. */
  const place = async (scanned: string, door?: number) => {
    if (!courier) return;
    setBusy(true);
    refusal.clear();
    const stale = staleOf(state.session);
    const answer = await (
      door === undefined
        ? kiosk.deposit(courier.no, scanned)
        : kiosk.depositShared(courier.no, scanned, door)
    ).catch((): Refusal => ({ kind: 'unavailable' }));
    setBusy(false);
    setAsking(null);
    // Online, a full locker offers the nearest with room; on its own it cannot move a booking.
    if (answer.kind === 'cabinet_full' && workingAlone(state) === null)
      setOverflow({ tracking: scanned, size: answer.size });
    else if (isRefusal(answer)) refusal.refuse(answer);
    else {
      setTracking('');
      setLastDoor(answer.door);
      setOpened({ door: answer.door, stale, ...(door === undefined ? {} : { shared: true }) });
    }
  };
  const deposit = async () => {
    if (!courier) return;
    if (lastDoor !== null) {
      setBusy(true);
      const check = await kiosk
        .checkSharedDoor(courier.no, tracking, lastDoor)
        .catch(() => ({ kind: 'not_shareable' as const }));
      setBusy(false);
      if (check.kind === 'shareable') {
        setAsking({ door: check.door, tracking });
        return;
      }
    }
    await place(tracking);
  };

  if (!courier) {
    return (
      <Screen
        name="courier-login"
        heading={t('courier.title')}
        instruction={t('courier.instruction')}
        message={refusal.message}
        actions={<BackButton onClick={back} />}
        main={
          <Keypad
            value={courierNo}
            onChange={setCourierNo}
            onSubmit={() => void verify()}
            onCancel={back}
            minLength={COURIER_MIN}
            maxLength={20}
            groups={[4]}
            label={t('courier.instruction')}
            busy={busy}
            locked={refusal.locked}
            acceptLetters
          />
        }
      />
    );
  }
  if (collecting) {
    return <CollectScreen {...props} courierNo={courier.no} back={() => setCollecting(false)} />;
  }
  if (asking) {
    return (
      <SharedDoorQuestion
        door={asking.door}
        busy={busy}
        onSame={() => void place(asking.tracking, asking.door)}
        onOwn={() => void place(asking.tracking)}
      />
    );
  }
  if (overflow !== null) {
    const scanNext = () => {
      setOverflow(null);
      setTracking('');
    };
    return (
      <OverflowScreen
        courierNo={courier.no}
        trackingNumber={overflow.tracking}
        size={overflow.size}
        back={() => setOverflow(null)}
        next={scanNext}
        finish={home}
      />
    );
  }
  if (opened) {
    return (
      <DoorScreen
        name="courier-door"
        state={state}
        columns={columns}
        door={opened.door}
        stale={opened.stale}
        texts={{
          open: opened.shared ? t('sharedDoor.put') : t('courier.put'),
          done: opened.shared ? t('sharedDoor.deposited') : t('courier.deposited'),
          amiss: t('courier.shutEmpty'),
        }}
        closedActions={
          <>
            <button type="button" className="secondary" onClick={home}>
              {t('courier.finish')}
            </button>
            <button type="button" className="primary" onClick={() => setOpened(null)}>
              {t('courier.next')}
            </button>
          </>
        }
      />
    );
  }
  return (
    <Screen
      name="courier-ready"
      heading={
        courier.name ? t('courier.hello', { name: courier.name }) : t('onItsOwn.courierHello')
      }
      instruction={t('courier.scan')}
      message={refusal.message}
      info={
        <>
          {courier.toTakeOut !== null && (
            <p className="to-take-out">{t('courier.toTakeOut', { count: courier.toTakeOut })}</p>
          )}
          <FreeDoors state={state} />
        </>
      }
      actions={
        <>
          <button type="button" className="secondary" onClick={home}>
            {t('courier.finish')}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={refusal.outOfService !== null || workingAlone(state) !== null}
            onClick={() => setCollecting(true)}
          >
            {t('courier.collect')}
          </button>
        </>
      }
      main={
        <Keypad
          value={tracking}
          onChange={setTracking}
          onSubmit={() => void deposit()}
          onCancel={back}
          minLength={TRACKING_MIN}
          maxLength={TRACKING_MAX}
          groups={[4]}
          label={t('courier.scan')}
          busy={busy}
          locked={refusal.locked}
          acceptLetters
        />
      }
    />
  );
}
