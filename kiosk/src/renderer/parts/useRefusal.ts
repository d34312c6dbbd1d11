import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { KioskState, Refusal } from '../../bridge/api';
import { outOfService, reasonKey, workingAlone } from '../kioskView';
import type { ScreenMessage } from './Screen';

export type Shown = Refusal | { kind: 'unknown_courier' };

/** Where the refusal came from: the same refusal suggests a different next step. */
type Task = 'pickup' | 'return' | 'courier';

/**
 * The refusal on screen and its one sentence. A rate limit is no mistake of this person's:
 * a neutral "please wait N s" that counts down, keeps OK off, and clears itself at zero.
 *
 * A locker that goes out of service while someone is typing says so here, as the home
 * screen would (why, and that the parcels are safe), with OK off meanwhile: what was
 * typed stays, and it all clears itself when the cause clears. A refusal that only said
 * the service did not answer is then out of date and goes.
 */
export function useRefusal(task: Task, state: KioskState) {
  const { t } = useTranslation();
  const supportPhone = state.config?.support_phone ?? '';
  const alone = workingAlone(state);
  // On its own, the locker still hands out parcels (and takes couriers' deposits when it
  // kept what they need); a return needs the service.
  const cause =
    alone && (task === 'return' || (task === 'courier' && !alone.deposit))
      ? 'service_unreachable'
      : outOfService(state);
  const [refusal, setRefusal] = useState<Shown | null>(null);
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (cause && refusal?.kind === 'unavailable') setRefusal(null);
  }, [cause, refusal]);
  useEffect(() => {
    if (refusal?.kind !== 'rate_limited') return;
    const until = Date.now() + refusal.retryAfterSeconds * 1000;
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) setRefusal(null);
      else setSeconds(left);
    };
    tick();
    const timer = setInterval(tick, 250);
    return () => clearInterval(timer);
  }, [refusal]);

  let message: ScreenMessage | null = null;
  if (alone && !cause && !refusal) {
    message = {
      text: t(task === 'courier' ? 'onItsOwn.courier' : 'onItsOwn.pickup'),
      tone: 'info',
    };
  }
  if (cause) {
    message = {
      text: `${t('outOfService.title')}. ${t(reasonKey(cause))} ${t('outOfService.safe')}`,
      tone: 'warning',
    };
  } else if (refusal) {
    const kind = refusal.kind;
    switch (kind) {
      case 'rate_limited': {
        const first = t('errors.rate_limited', { seconds: refusal.retryAfterSeconds });
        message = {
          text: t('errors.rate_limited', { seconds: seconds || refusal.retryAfterSeconds }),
          tone: 'info',
          speech: first,
        };
        break;
      }
      case 'unavailable':
        message = { text: t('errors.unavailable'), tone: 'warning' };
        break;
      case 'door_failed':
        message = {
          text: t('errors.door_failed', { door: refusal.door, phone: supportPhone }),
          tone: 'error',
        };
        break;
      case 'door_out_of_service':
        message = {
          text: t('supervision.doorOutOfService', { door: refusal.door, phone: supportPhone }),
          tone: 'error',
        };
        break;
      case 'cabinet_full':
        message = {
          text:
            task === 'return'
              ? t('errors.cabinet_full_return')
              : t('errors.cabinet_full', { size: refusal.size ?? '' }),
          tone: 'error',
        };
        break;
      case 'unknown_courier':
        message = { text: t('courier.unknown'), tone: 'error' };
        break;
      case 'invalid_code':
      case 'courier_not_verified':
      case 'not_found':
        message = { text: t(`errors.${kind}`), tone: 'error' };
        break;
      default: {
        const never: never = kind;
        throw new Error(`unhandled refusal ${String(never)}`);
      }
    }
  }
  return {
    message,
    refuse: setRefusal,
    clear: () => setRefusal(null),
    /** OK stays off while a rate limit counts down, and while the locker is out of service. */
    locked: refusal?.kind === 'rate_limited' || cause !== null,
    /** Why nothing that needs the service can work now; null when it can. */
    outOfService: cause,
  };
}

export function isRefusal(value: unknown): value is Refusal {
  return (
    typeof value === 'object' &&
    value !== null &&
    !['door_open', 'door_unknown'].includes((value as { kind: string }).kind)
  );
}
