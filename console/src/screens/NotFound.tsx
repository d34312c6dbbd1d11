import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';

export function NotFound() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <Link href="/">{t('nav.home')}</Link>
    </section>
  );
}
