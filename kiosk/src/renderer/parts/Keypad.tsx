import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useOptions } from '../options';

interface Props {
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  /** Escape on a physical keypad: the screen's way back. */
  onCancel?: () => void;
  /** OK becomes active at this many characters: an early OK only burns an attempt. */
  minLength: number;
  maxLength: number;
  /** Shown in groups: [4, 4] for pickup codes; [4] repeats for tracking numbers. */
  groups: number[];
  label: string;
  busy?: boolean;
  /** OK stays off meanwhile (a rate limit counting down). */
  locked?: boolean;
  /** Scanners may send letters (badge numbers); pickup codes are digits only. */
  acceptLetters?: boolean;
  /** A PIN: shown as dots and never spoken. */
  secret?: boolean;
}

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];
const LONG_PRESS_MS = 800;

/** Splits what was typed into groups of the given sizes; the last size repeats. */
export function group(value: string, sizes: number[]): string[] {
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; at < value.length; i++) {
    const size = sizes[Math.min(i, sizes.length - 1)]!;
    parts.push(value.slice(at, at + size));
    at += size;
  }
  return parts;
}

/**
 * A large keypad. A physical 12-key pad or a barcode scanner acting as a keyboard types
 * into it too: characters append, Enter is OK, Backspace deletes, Escape goes back. A
 * long press on 5 (the tactile dot), on screen or on the pad, turns speech on.
 */
export function Keypad(props: Props) {
  const { value, onChange, maxLength, busy, locked } = props;
  const { t } = useTranslation();
  const { say, startSpeech } = useOptions();
  const longPress = useRef<{ timer?: ReturnType<typeof setTimeout>; fired: boolean }>({
    fired: false,
  });
  const ready = value.length >= props.minLength && !busy && !locked;
  const press = (key: string) => {
    if (value.length >= maxLength) return;
    if (!props.secret) say(key);
    onChange(value + key);
  };
  const erase = () => {
    say(t('keypad.delete'));
    onChange(value.slice(0, -1));
  };
  const submit = () => {
    if (ready) props.onSubmit();
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // A chord (a technician's Ctrl+Alt+S) is no digit or letter for the display.
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (event.key === '5' && event.repeat) {
        // Held down: the first press typed a 5 that was not meant.
        if (!longPress.current.fired) onChange(value.endsWith('5') ? value.slice(0, -1) : value);
        longPress.current.fired = true;
        startSpeech();
        return;
      }
      longPress.current.fired = false;
      if ((props.acceptLetters ? /^[0-9A-Za-z-]$/ : /^[0-9]$/).test(event.key))
        press(event.key.toUpperCase());
      else if (event.key === 'Backspace') erase();
      else if (event.key === 'Enter') submit();
      else if (event.key === 'Escape') props.onCancel?.();
      else return;
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  const fiveDown = () => {
    longPress.current.fired = false;
    longPress.current.timer = setTimeout(() => {
      longPress.current.fired = true;
      startSpeech();
    }, LONG_PRESS_MS);
  };
  const fiveUp = () => clearTimeout(longPress.current.timer);
  // A fixed length (pickup codes) shows its empty places: the person sees how many are left.
  const fixed = props.minLength === maxLength;
  const parts = group(fixed ? value.padEnd(maxLength, '–') : value, props.groups);

  return (
    <div className="keypad">
      <output
        className="keypad-display"
        aria-label={`${t('keypad.entered')}: ${props.label}`}
        aria-live="polite"
        data-value={props.secret ? undefined : value}
      >
        {parts.length === 0 && '\u00a0'}
        {parts.map((part, i) => {
          const typed = part.replace(/–+$/, '');
          return (
            <span key={i} className="keypad-group">
              {props.secret ? '•'.repeat(typed.length) : typed}
              {typed.length < part.length && (
                <span className="keypad-slot" aria-hidden="true">
                  {part.slice(typed.length)}
                </span>
              )}
            </span>
          );
        })}
      </output>
      <div className="keypad-keys">
        {KEYS.map((k) => (
          <button
            key={k}
            type="button"
            className={k === '5' ? 'key key-dot' : 'key'}
            onPointerDown={k === '5' ? fiveDown : undefined}
            onPointerUp={k === '5' ? fiveUp : undefined}
            onPointerLeave={k === '5' ? fiveUp : undefined}
            onClick={() => {
              if (k === '5' && longPress.current.fired) return;
              press(k);
            }}
          >
            {k}
          </button>
        ))}
        <button
          type="button"
          className="key key-delete"
          aria-label={t('keypad.delete')}
          onClick={erase}
        >
          ⌫
        </button>
        <button type="button" className="key" onClick={() => press('0')}>
          0
        </button>
        <button type="button" className="key key-primary" disabled={!ready} onClick={submit}>
          {t('keypad.ok')}
        </button>
      </div>
    </div>
  );
}
