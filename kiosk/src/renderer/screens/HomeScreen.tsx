import { useTranslation } from 'react-i18next';
import { Screen } from '../parts/Screen';

export type Task = 'pickup' | 'return' | 'courier';

/** The three tasks as large buttons; the language and options are on every screen. */
export function HomeScreen({ start, phone }: { start: (task: Task) => void; phone: string }) {
  const { t } = useTranslation();
  return (
    <Screen
      name="home"
      heading={t('title')}
      instruction={t('home.instruction')}
      info={
        <>
          {phone && <p className="support">{t('support', { phone })}</p>}
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
        </>
      }
      main={
        <div className="home-actions">
          <button type="button" className="big" onClick={() => start('pickup')}>
            {t('home.pickup')}
          </button>
          <button type="button" className="big" onClick={() => start('return')}>
            {t('home.return')}
          </button>
          <button type="button" className="big big-quiet" onClick={() => start('courier')}>
            {t('home.courier')}
          </button>
        </div>
      }
    />
  );
}
