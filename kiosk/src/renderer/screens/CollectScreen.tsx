import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Collection, Refusal } from '../../bridge/api';
import { kiosk } from '../bridge';
import { BackButton } from '../parts/BackButton';
import { DoneButton } from '../parts/DoneButton';
import { DoorScreen, FINAL_SECONDS } from '../parts/DoorScreen';
import { group } from '../parts/Keypad';
import { Screen } from '../parts/Screen';
import { useRefusal } from '../parts/useRefusal';
import type { ScreenProps } from './props';

/** How a take-out ended, in one sentence with the parcels left in the locker. */
function endText(t: ReturnType<typeof useTranslation>['t'], c: Collection): string {
  const count = c.total - c.taken;
  if (c.total === 0) return t('courier.collectNone');
  switch (c.ended) {
    case 'stopped':
      return t('courier.collectStopped', { count });
    case 'controller_down':
      return t('courier.collectDown', { count });
    case 'finished':
    case null:
      return count === 0 ? t('courier.collectDone') : t('courier.collectRest', { count });
    default: {
      const never: never = c.ended;
      throw new Error(`unknown end ${String(never)}`);
    }
  }
}

/**
 * The courier takes the waiting returns and expired parcels out, door after door, as the
 * core opens them: each door with its parcel's tracking number and "2 of 5", and a way to
 * stop that leaves the rest for later (the open door is finished first).
 */
export function CollectScreen({
  state,
  columns,
  home,
  courierNo,
  back,
}: ScreenProps & { courierNo: string; back: () => void }) {
  const { t } = useTranslation();
  const [id, setId] = useState<number | null>(null);
  const refusal = useRefusal('courier', state);
  useEffect(() => {
    void kiosk
      .collectReturns(courierNo)
      .catch((): Refusal => ({ kind: 'unavailable' }))
      .then((answer) => (answer.kind === 'collecting' ? setId(answer.id) : refusal.refuse(answer)));
  }, [courierNo]);
  // Only this courier's take-out: an earlier one may still be in the state.
  const collection = state.collection?.id === id ? state.collection : null;

  if (collection && collection.status !== 'ended' && collection.parcel) {
    const { parcel } = collection;
    const stopping = collection.status === 'stopping';
    const stop = !stopping && (
      <button type="button" className="secondary" onClick={() => void kiosk.stopCollecting()}>
        {t('courier.stop')}
      </button>
    );
    return (
      <DoorScreen
        name="collect-door"
        state={state}
        columns={columns}
        door={parcel.door}
        progress={t('courier.progress', { index: collection.index, count: collection.total })}
        detail={t('courier.tracking', { number: group(parcel.trackingNumber, [4]).join(' ') })}
        texts={{
          open: stopping ? t('courier.collectStopping') : t('courier.collectTake'),
          done: t('courier.collectTaken'),
          amiss: t('courier.collectLeft'),
        }}
        openActions={stop}
        closedActions={stop}
      />
    );
  }
  const ended = collection?.status === 'ended';
  return (
    <Screen
      name="collect"
      heading={t('courier.collect')}
      instruction={
        collection && ended
          ? endText(t, collection)
          : t('courier.toTakeOut', { count: collection?.total ?? 0 })
      }
      message={refusal.message}
      // Reading matter, above Done: what was taken and what stays.
      info={
        collection &&
        ended &&
        collection.total > 0 && (
          <dl className="collect-summary">
            <div>
              <dt>{t('courier.summaryTaken')}</dt>
              <dd>{collection.taken}</dd>
            </div>
            <div>
              <dt>{t('courier.summaryLeft')}</dt>
              <dd>{collection.total - collection.taken}</dd>
            </div>
          </dl>
        )
      }
      actions={
        ended ? <DoneButton seconds={FINAL_SECONDS} onDone={home} /> : <BackButton onClick={back} />
      }
    />
  );
}
