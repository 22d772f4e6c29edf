import { useT } from '../context.ts';
import { BrandLogo } from './BrandLogo.tsx';
import { cx } from './cx.ts';
import { IslandScript } from './IslandScript.tsx';
import { ProgressBar } from './ProgressBar.tsx';

export type LoadingOverlayProps = {
  open?: boolean;
  /** An opaque white background instead of the translucent page colour. */
  whiteBackground?: boolean;
  id?: string;
  /**
   * The page-level loading flag: the id of a form whose time in flight (its aria-busy) this overlay shows,
   * e.g. a hand-off to a provider. Loads the overlay's island (client/page-loading.ts); without JavaScript
   * the overlay stays hidden and the form posts as usual.
   */
  follows?: string;
};

/**
 * Full-screen logo and progress bar. The bar moves fast, slows at 60, 80 and 90 % and stops at 100 %
 * when the island is told the work is done; without JavaScript a CSS animation gives the same curve.
 */
export function LoadingOverlay(props: LoadingOverlayProps) {
  const t = useT();
  const { open = true, whiteBackground = false, id = 'loading-overlay', follows } = props;
  return (
    <div
      className={cx('loading-overlay', whiteBackground && 'loading-overlay--white')}
      id={id}
      data-island="loading-overlay"
      role="status"
      aria-live="polite"
      hidden={!open}
      data-follows={follows}
    >
      <BrandLogo className="loading-overlay__logo" size={64} />
      <ProgressBar label={t('ui.loading')} className="loading-overlay__progress" />
      <span className="visually-hidden">{t('ui.loading')}</span>
      {follows ? <IslandScript name="page-loading" /> : null}
    </div>
  );
}
