import { useEffect, useRef } from 'react';

/** How long a finger must stay on the corner: long enough that nobody does it by chance. */
export const STAFF_HOLD_MS = 3000;

/** Ctrl+Alt+S on a keyboard plugged in by a technician (by key position, any layout). */
function isStaffChord(event: KeyboardEvent): boolean {
  return event.ctrlKey && event.altKey && !event.metaKey && event.code === 'KeyS';
}

/**
 * The technician's way into the service menu, on every screen (out of service included),
 * and invisible to customers: a finger held 3 s on the screen's top-left corner, or
 * Ctrl+Alt+S on a keyboard. Nothing is drawn and nothing is announced: the corner is an
 * empty, unlabelled patch over the heading, outside the reach zone where customers'
 * controls are. The PIN behind it is what guards the menu.
 */
export function StaffEntry({ open }: { open: () => void }) {
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const opener = useRef(open);
  opener.current = open;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!isStaffChord(event)) return;
      event.preventDefault();
      opener.current();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      clearTimeout(timer.current);
    };
  }, []);
  const release = () => clearTimeout(timer.current);
  return (
    <div
      className="staff-corner"
      aria-hidden="true"
      data-testid="staff-corner"
      onPointerDown={() => {
        release();
        timer.current = setTimeout(() => opener.current(), STAFF_HOLD_MS);
      }}
      // A finger that slides off the corner ends the hold (touch keeps sending its moves
      // here, so leaving is judged from where it is).
      onPointerMove={(event) => {
        const box = event.currentTarget.getBoundingClientRect();
        const { clientX: x, clientY: y } = event;
        if (x < box.left || x > box.right || y < box.top || y > box.bottom) release();
      }}
      onPointerUp={release}
      onPointerCancel={release}
      onPointerLeave={release}
      onContextMenu={(event) => event.preventDefault()}
    />
  );
}
