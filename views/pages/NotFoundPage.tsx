import { Button } from '../components/Button.tsx';
import { useT } from '../context.ts';

export function NotFoundPage() {
  const t = useT();
  return (
    <main className="page page--center">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <Button href="/" variant="PRIMARY" size="LG">
        {t('notFound.home')}
      </Button>
    </main>
  );
}
