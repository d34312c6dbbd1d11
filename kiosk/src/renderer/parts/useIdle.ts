import { useEffect, useRef, useState } from 'react';

/** The warning shows this long before the idle timeout (WCAG 2.2.1 asks for 20 s). */
export const WARN_SECONDS = 20;

/**
 * Counts the seconds since the last touch or key. Only people count as activity: state
 * pushed by the core (every heartbeat) must not keep an abandoned screen alive. While
 * `paused` (a door is open) the count stands still: nobody is sent home mid-task.
 */
export function useIdle(seconds: number, paused: boolean, onIdle: () => void) {
  const last = useRef(Date.now());
  const idle = useRef(onIdle);
  idle.current = onIdle;
  const [left, setLeft] = useState(seconds);
  useEffect(() => {
    const touch = () => {
      last.current = Date.now();
      setLeft(seconds);
    };
    const events = ['pointerdown', 'keydown'] as const;
    events.forEach((e) => window.addEventListener(e, touch, { capture: true }));
    const timer = setInterval(() => {
      if (paused) return touch();
      const remaining = Math.ceil(seconds - (Date.now() - last.current) / 1000);
      if (remaining <= 0) {
        touch();
        idle.current();
      } else setLeft(remaining);
    }, 250);
    return () => {
      clearInterval(timer);
      events.forEach((e) => window.removeEventListener(e, touch, { capture: true }));
    };
  }, [seconds, paused]);
  return { left, warning: !paused && left <= WARN_SECONDS };
}
