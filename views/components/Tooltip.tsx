import type { ReactNode } from 'react';
import { cx } from './cx.ts';
import { IslandScript } from './IslandScript.tsx';

export type TooltipProps = {
  id: string;
  /** The tooltip text. */
  content: ReactNode;
  /** The element described; wrapped in a focusable span unless `focusable` is false (already focusable child). */
  children: ReactNode;
  placement?: 'top' | 'bottom';
  focusable?: boolean;
};

/**
 * Opens on hover (100 ms), focus, or a long touch (700 ms); closes on Escape, blur or leave (1500 ms
 * after a touch ends). Without JavaScript, CSS shows it on hover and focus.
 */
export function Tooltip(props: TooltipProps) {
  const { id, content, children, placement = 'top', focusable = true } = props;
  const bubbleId = `${id}-tip`;
  return (
    <span className={cx('tooltip', `tooltip--${placement}`)} id={id} data-island="tooltip">
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- the trigger must take keyboard focus, which is what shows the tooltip (WAI-ARIA tooltip pattern) */}
      <span className="tooltip__trigger" tabIndex={focusable ? 0 : undefined} aria-describedby={bubbleId}>
        {children}
      </span>
      <span className="tooltip__bubble" role="tooltip" id={bubbleId}>
        {content}
      </span>
      {/* Loaded once however many tooltips a page has (one module URL runs once). */}
      <IslandScript name="tooltip" />
    </span>
  );
}
