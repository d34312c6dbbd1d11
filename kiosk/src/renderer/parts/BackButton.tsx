import { useTranslation } from 'react-i18next';

export function BackButton({ onClick, label }: { onClick: () => void; label?: string }) {
  const { t } = useTranslation();
  return (
    <button type="button" className="secondary back" onClick={onClick}>
      {label ?? t('keypad.back')}
    </button>
  );
}
