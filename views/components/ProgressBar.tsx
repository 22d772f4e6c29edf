import { cx } from './cx.ts';

export type ProgressBarProps = {
  label: string;
  /** `navigation`: the thin bar at the top of the window during page navigation (driven by its island). */
  variant?: 'navigation' | 'inline';
  className?: string;
};

/**
 * A determinate bar moved by an island through CSSOM (`transform`), never a style attribute.
 * The navigation bar stays hidden until a navigation starts.
 */
export function ProgressBar(props: ProgressBarProps) {
  const { label, variant = 'inline', className } = props;
  return (
    <div
      className={cx('progress', `progress--${variant}`, className)}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      data-island={variant === 'navigation' ? 'nav-progress' : undefined}
      hidden={variant === 'navigation'}
    >
      <div className="progress__bar" />
    </div>
  );
}
