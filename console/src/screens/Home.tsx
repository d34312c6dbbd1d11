import { useTranslation } from 'react-i18next';
import { useConsole } from '../context';
import { AlertInbox } from '../parts/AlertInbox';
import { Counts } from '../parts/Counts';

/** The first screen answers "what needs me now?": the counts, then the alert inbox. */
export function HomeScreen() {
  const { t } = useTranslation();
  const c = useConsole();
  return (
    <section className="page">
      <h1>{t('home.title')}</h1>
      <Counts />
      {c.can('alerts.read') && (
        <AlertInbox filter={{ status: 'active' }} heading={t('home.inbox')} />
      )}
    </section>
  );
}
