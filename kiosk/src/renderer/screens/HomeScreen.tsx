import { useTranslation } from 'react-i18next';
import type { OnItsOwn } from '../../bridge/api';
import { Screen } from '../parts/Screen';

export type Task = 'pickup' | 'return' | 'courier';

/**
 * The three tasks as large buttons; the language and options are on every screen. A
 * locker working on its own says so plainly, what still works first, and turns off the
 * tasks it cannot do alone.
 */
export function HomeScreen({
  start,
  phone,
  alone = null,
}: {
  start: (task: Task) => void;
  phone: string;
  alone?: OnItsOwn | null;
}) {
  const { t } = useTranslation();
  return (
    <Screen
      name="home"
      heading={t('title')}
      instruction={t('home.instruction')}
      message={
        alone && {
          text: [
            t('onItsOwn.home'),
            alone.deposit ? t('onItsOwn.homeCourier') : '',
            t('onItsOwn.notNow'),
          ]
            .filter(Boolean)
            .join(' '),
          tone: 'info',
        }
      }
      info={
        <>
          {alone && (
            <p className="on-its-own" data-testid="on-its-own">
              {t('onItsOwn.title')}
            </p>
          )}
          {phone && <p className="support">{t('support', { phone })}</p>}
          {/* On its own, what it means for this person takes the steps' place. */}
          {!alone && (
            <ol className="steps">
              {(['one', 'two', 'three'] as const).map((step, i) => (
                <li key={step}>
                  <span className="step-number" aria-hidden="true">
                    {i + 1}
                  </span>
                  {t(`home.steps.${step}`)}
                </li>
              ))}
            </ol>
          )}
        </>
      }
      main={
        <div className="home-actions">
          <button type="button" className="big" onClick={() => start('pickup')}>
            {t('home.pickup')}
          </button>
          <button
            type="button"
            className="big"
            disabled={alone !== null}
            onClick={() => start('return')}
          >
            {t('home.return')}
          </button>
          <button
            type="button"
            className="big big-quiet"
            disabled={alone !== null && !alone.deposit}
            onClick={() => start('courier')}
          >
            {t('home.courier')}
          </button>
        </div>
      }
    />
  );
}
