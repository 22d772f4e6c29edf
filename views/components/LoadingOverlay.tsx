import { useT, useView } from '../context.ts';
import { cx } from './cx.ts';
import { ProgressBar } from './ProgressBar.tsx';

export type LoadingOverlayProps = {
  open?: boolean;
  /** An opaque white background instead of the translucent page colour. */
  whiteBackground?: boolean;
  id?: string;
};

/**
 * Full-screen logo and progress bar. The bar moves fast, slows at 60, 80 and 90 % and stops at 100 %
 * when the island is told the work is done; without JavaScript a CSS animation gives the same curve.
 */
export function LoadingOverlay(props: LoadingOverlayProps) {
  const t = useT();
  const { brand } = useView();
  const { open = true, whiteBackground = false, id = 'loading-overlay' } = props;
  return (
    <div
      className={cx('loading-overlay', whiteBackground && 'loading-overlay--white')}
      id={id}
      data-island="loading-overlay"
      role="status"
      aria-live="polite"
      hidden={!open}
    >
      <img className="loading-overlay__logo" src={brand.logoUrl} alt="" width="64" height="64" />
      <ProgressBar label={t('ui.loading')} className="loading-overlay__progress" />
      <span className="visually-hidden">{t('ui.loading')}</span>
    </div>
  );
}
