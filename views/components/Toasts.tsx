import { useT } from '../context.ts';
import type { ToastVariant } from './constants.ts';
import { cx } from './cx.ts';
import { Icon } from './Icon.tsx';

export type ToastItem = { id: string; message: string; variant: ToastVariant };

/**
 * The toast region. Server-rendered items are plain banners without JavaScript; the toasts island
 * turns the region into the top-right stack (at most 3, auto-hiding) and adds toasts from other islands.
 * The data-text-* attributes carry translated texts the islands need.
 */
export function Toasts(props: { items?: ToastItem[] }) {
  const t = useT();
  return (
    <div
      className="toasts"
      data-island="toasts"
      role="region"
      aria-label={t('ui.notifications')}
      data-text-close={t('ui.close')}
      data-text-network={t('ui.errors.network')}
      data-text-server={t('ui.errors.server')}
    >
      {(props.items ?? []).map((item) => (
        <Toast key={item.id} {...item} />
      ))}
    </div>
  );
}

export function Toast(props: ToastItem) {
  const t = useT();
  return (
    <div
      className={cx('toast', `toast--${props.variant}`)}
      id={`toast-${props.id}`}
      role={props.variant === 'error' ? 'alert' : 'status'}
      data-toast=""
      data-phase="queued"
    >
      <Icon name={props.variant === 'warning' ? 'warn' : props.variant} className="icon toast__icon" />
      <p className="toast__message">{props.message}</p>
      <button type="button" className="toast__close" data-toast-close="" aria-label={t('ui.close')} hidden>
        <Icon name="close" />
      </button>
    </div>
  );
}
