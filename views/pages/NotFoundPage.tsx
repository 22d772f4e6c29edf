import { useT } from '../context.ts';

export function NotFoundPage() {
  const t = useT();
  return (
    <main className="page page--center">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <a className="btn btn--PRIMARY btn--MD" href="/">
        {t('notFound.home')}
      </a>
    </main>
  );
}
