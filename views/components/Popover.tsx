import type { ReactNode } from 'react';
import { cx } from './cx.ts';
import { IslandScript } from './IslandScript.tsx';

export type PopoverProps = {
  id: string;
  /** The trigger's content. */
  label: ReactNode;
  children: ReactNode;
  align?: 'start' | 'end';
  className?: string;
};

/**
 * A disclosure panel built on <details>: it opens and closes without JavaScript. The panel fades in
 * over 250 ms; the dialog island closes it on Escape or an outside click.
 */
export function Popover(props: PopoverProps) {
  const { id, label, children, align = 'start', className } = props;
  return (
    <>
      <details className={cx('popover', `popover--${align}`, className)} id={id} data-popover="">
        <summary className="popover__trigger">{label}</summary>
        <div className="popover__panel">{children}</div>
      </details>
      <IslandScript name="dialogs" />
    </>
  );
}
