import { cx } from './cx.ts';

/** A decorative spinner; pair it with text (or aria-busy) that says what is loading. */
export function Spinner(props: { className?: string }) {
  return <span className={cx('spinner', props.className)} aria-hidden="true" />;
}
