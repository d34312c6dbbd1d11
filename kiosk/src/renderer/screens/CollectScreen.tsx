import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Refusal } from '../../bridge/api';
import { kiosk } from '../bridge';
import { DoorScreen } from '../parts/DoorScreen';
import { Screen } from '../parts/Screen';
import { useRefusal } from '../parts/useRefusal';
import { supportPhone, type ScreenProps } from './props';

/** The courier takes the waiting returns out, door after door, as the core opens them. */
export function CollectScreen({
  state,
  columns,
  home,
  courierNo,
  back,
}: ScreenProps & { courierNo: string; back: () => void }) {
  const { t } = useTranslation();
  const [count, setCount] = useState<number | null>(null);
  const refusal = useRefusal('courier', supportPhone(state));
  const doorsSeen = useRef<number[]>([]);
  const [finished, setFinished] = useState(false);
  const session = state.session?.kind === 'collect' ? state.session : null;
  if (session && !doorsSeen.current.includes(session.door)) doorsSeen.current.push(session.door);
  useEffect(() => {
    if (!session && doorsSeen.current.length > 0) setFinished(true);
  }, [session]);
  useEffect(() => {
    void kiosk
      .collectReturns(courierNo)
      .catch((): Refusal => ({ kind: 'unavailable' }))
      .then((answer) =>
        answer.kind === 'collecting' ? setCount(answer.count) : refusal.refuse(answer),
      );
  }, [courierNo]);

  if (session && count !== null) {
    return (
      <DoorScreen
        name="collect-door"
        state={state}
        columns={columns}
        door={session.door}
        progress={t('courier.progress', { index: doorsSeen.current.length, count })}
        texts={{
          open: t('courier.collectTake'),
          done: t('courier.collectTaken'),
          amiss: t('courier.collectLeft'),
        }}
      />
    );
  }
  const done = count === 0 || finished;
  return (
    <Screen
      name="collect"
      heading={t('courier.collect')}
      instruction={
        count === 0
          ? t('courier.collectNone')
          : finished
            ? t('courier.collectDone')
            : t('courier.toTakeOut', { count: count ?? 0 })
      }
      message={refusal.message}
      actions={
        <>
          <button type="button" className="secondary" onClick={back}>
            {t('keypad.back')}
          </button>
          {done && (
            <button type="button" className="primary" onClick={home}>
              {t('done')}
            </button>
          )}
        </>
      }
    />
  );
}
