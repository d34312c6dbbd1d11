import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Details and actions beside a list, never a modal: the list stays usable, Escape or
 * Close gives the focus back to where it came from.
 */
export function SidePanel({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const from = document.activeElement as HTMLElement | null;
    heading.current?.focus();
    return () => {
      if (from && document.contains(from)) from.focus();
    };
  }, [title]);
  return (
    <aside
      className="side-panel"
      aria-label={title}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <div className="side-head">
        <h2 ref={heading} tabIndex={-1}>
          {title}
        </h2>
        <button type="button" className="quiet" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
      {children}
    </aside>
  );
}
