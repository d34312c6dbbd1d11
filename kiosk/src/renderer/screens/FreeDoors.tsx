import type { Size } from '@locker/shared';
import { useTranslation } from 'react-i18next';
import type { KioskState } from '../../bridge/api';

// Listed here: importing the shared schemas would bring zod into the renderer.
const SIZES: readonly Size[] = ['S', 'M', 'L', 'XL'];

/** What a courier needs before scanning: how many doors of each size are free. */
export function FreeDoors({ state }: { state: KioskState }) {
  const { t } = useTranslation();
  if (!state.cabinet) return null;
  const free = (size: string) =>
    state.cabinet!.doors.filter((d) => d.size === size && d.status === 'available').length;
  return (
    <div className="free-doors">
      <h2>{t('courier.free')}</h2>
      <ul>
        {SIZES.map((size) => (
          <li key={size}>{t('courier.freeSize', { size, count: free(size) })}</li>
        ))}
      </ul>
    </div>
  );
}
