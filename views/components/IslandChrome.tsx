import { useT } from '../context.ts';
import { ProgressBar } from './ProgressBar.tsx';
import { Toasts, type ToastItem } from './Toasts.tsx';

/**
 * What every page body should carry for the islands: the toast region (with the translated texts the
 * islands use), the navigation progress bar and a polite live region for announcements.
 */
export function IslandChrome(props: { toasts?: ToastItem[] }) {
  const t = useT();
  return (
    <>
      <ProgressBar label={t('ui.loading')} variant="navigation" />
      <Toasts items={props.toasts} />
      <div className="visually-hidden" id="live-region" aria-live="assertive" aria-atomic="true" />
    </>
  );
}
