import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

/** Whether a key press is typing into a field (shortcuts leave it alone). */
export function typing(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  return (
    !!target &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  );
}

/** `?` lists the keyboard shortcuts; Escape or Close puts them away. */
export function Shortcuts() {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '?' && !typing(e) && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const rows: [string, string][] = [
    ['j / ↓', t('shortcuts.next')],
    ['k / ↑', t('shortcuts.previous')],
    ['o / Enter', t('shortcuts.open')],
    ['a', t('shortcuts.acknowledge')],
    ['n', t('shortcuts.takeIn')],
    ['/', t('shortcuts.search')],
    ['?', t('shortcuts.help')],
  ];
  return (
    <dialog
      ref={dialog}
      className="shortcuts"
      aria-labelledby="shortcuts-title"
      onClose={() => setOpen(false)}
    >
      <h2 id="shortcuts-title">{t('shortcuts.title')}</h2>
      <table>
        <tbody>
          {rows.map(([key, what]) => (
            <tr key={key}>
              <th scope="row">
                <kbd>{key}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={() => setOpen(false)}>
        {t('common.close')}
      </button>
    </dialog>
  );
}
