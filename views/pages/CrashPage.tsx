import { useT, useView } from '../context.ts';

/** Spec §2 crash screen. The Retry button reloads through a plain link so it works without JS. */
export function CrashPage() {
  const t = useT();
  const { url, requestId } = useView();
  return (
    <main className="page page--center" role="alert">
      <h1>{t('crash.title')}</h1>
      <p>{t('crash.text')}</p>
      <a className="btn btn--PRIMARY btn--MD" href={url} data-reload="">
        {t('crash.retry')}
      </a>
      {requestId ? <p className="muted">{t('crash.requestId', { id: requestId })}</p> : null}
    </main>
  );
}
