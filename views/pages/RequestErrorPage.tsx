import { Button } from '../components/Button.tsx';
import { useT } from '../context.ts';

/**
 * A request the app could not accept (400, 403, 413, 415, 429…): what went wrong in the visitor's
 * language and a way back. `messageKey` names a locale section with `title` and `text`.
 */
export function RequestErrorPage(props: { messageKey: string }) {
  const t = useT();
  return (
    <main className="page page--center" role="alert">
      <h1>{t(`${props.messageKey}.title`)}</h1>
      <p>{t(`${props.messageKey}.text`)}</p>
      <Button href="/" variant="PRIMARY" size="LG">
        {t('notFound.home')}
      </Button>
    </main>
  );
}
