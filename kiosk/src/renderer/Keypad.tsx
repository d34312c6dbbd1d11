import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

interface Props {
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  maxLength: number;
  label: string;
  busy?: boolean;
  /** Scanners may send letters (badge numbers); pickup codes are digits only. */
  acceptLetters?: boolean;
}

const KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9'];

/**
 * A large on-screen keypad. A barcode or badge scanner acting as a keyboard types into
 * it too: digits append, Enter submits, Backspace deletes.
 */
export function Keypad({
  value,
  onChange,
  onSubmit,
  maxLength,
  label,
  busy,
  acceptLetters,
}: Props) {
  const { t } = useTranslation();
  const press = (digit: string) => value.length < maxLength && onChange(value + digit);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((acceptLetters ? /^[0-9A-Za-z-]$/ : /^[0-9]$/).test(event.key)) press(event.key);
      else if (event.key === 'Backspace') onChange(value.slice(0, -1));
      else if (event.key === 'Enter' && value && !busy) onSubmit();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  return (
    <div className="keypad">
      <output className="keypad-display" aria-label={label} aria-live="polite">
        {value || '\u00a0'}
      </output>
      <div className="keypad-keys">
        {KEYS.map((k) => (
          <button key={k} type="button" className="key" onClick={() => press(k)}>
            {k}
          </button>
        ))}
        <button
          type="button"
          className="key key-secondary"
          aria-label={t('keypad.delete')}
          onClick={() => onChange(value.slice(0, -1))}
        >
          ⌫
        </button>
        <button type="button" className="key" onClick={() => press('0')}>
          0
        </button>
        <button
          type="button"
          className="key key-primary"
          disabled={!value || busy}
          onClick={onSubmit}
        >
          {t('keypad.ok')}
        </button>
      </div>
    </div>
  );
}
