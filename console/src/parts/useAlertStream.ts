import { AlertStreamEventSchema, CurrentSessionSchema, type Alert } from '@locker/shared';
import { useEffect, useRef, useState } from 'react';
import { API, get, SIGNED_OUT_EVENT } from '../api';
import type { DoorStatesEvent } from './doorState';

export type StreamEvent = {
  event: 'opened' | 'occurred' | 'acknowledged' | 'resolved';
  alert: Alert;
};

/** The live stream's state: `down` since when, so the screen can say how stale it is. */
export type StreamState = { up: true } | { up: false; since: number };

const RETRY_MS = 5000;

/**
 * GET /ops/v1/alerts/stream (server-sent events). The browser reconnects by itself after a
 * dropped connection; a refused one (the stream answered an error) is retried here, after
 * checking the session is still there. The stream replays nothing, so after any
 * reconnection `onReconnect` re-fetches the list.
 */
export function useAlertStream(
  onEvent: (event: StreamEvent) => void,
  onReconnect: () => void,
  onDoors?: (event: DoorStatesEvent) => void,
): StreamState {
  const [state, setState] = useState<StreamState>({ up: true });
  const handlers = useRef({ onEvent, onReconnect, onDoors });
  handlers.current = { onEvent, onReconnect, onDoors };
  useEffect(() => {
    let source: EventSource | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let dropped = false;
    let stopped = false;
    const connect = () => {
      source = new EventSource(`${API}/alerts/stream`);
      source.addEventListener('open', () => {
        if (dropped) handlers.current.onReconnect();
        dropped = false;
        setState({ up: true });
      });
      source.addEventListener('error', () => {
        if (!dropped) setState({ up: false, since: Date.now() });
        dropped = true;
        if (source?.readyState === EventSource.CLOSED && !stopped) {
          // A refusal: a gone session sends the console to sign-in (api.ts), else try again.
          retry = setTimeout(() => {
            get('/session', CurrentSessionSchema).then(
              () => !stopped && connect(),
              () => !stopped && (retry = setTimeout(connect, RETRY_MS)),
            );
          }, RETRY_MS);
        }
      });
      source.addEventListener('alert', (message) => {
        let data: unknown;
        try {
          data = JSON.parse((message as MessageEvent<string>).data);
        } catch {
          return;
        }
        const parsed = AlertStreamEventSchema.safeParse(data);
        if (parsed.success) handlers.current.onEvent(parsed.data);
      });
      // The live link's door states (its stations' doors, as kiosks report them).
      source.addEventListener('door', (message) => {
        try {
          const data = JSON.parse((message as MessageEvent<string>).data) as DoorStatesEvent;
          if (typeof data.station_code === 'string' && Array.isArray(data.doors))
            handlers.current.onDoors?.(data);
        } catch {
          // An unreadable event changes nothing; the page's next refresh has the truth.
        }
      });
      source.addEventListener('session_ended', () => {
        stopped = true;
        source?.close();
        window.dispatchEvent(new CustomEvent(SIGNED_OUT_EVENT));
      });
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      source?.close();
    };
  }, []);
  return state;
}
