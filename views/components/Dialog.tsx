import type { ReactNode } from 'react';
import { useT } from '../context.ts';
import type { DialogIcon, DialogWidth } from './constants.ts';
import { cx } from './cx.ts';
import { Icon } from './Icon.tsx';
import { IslandScript } from './IslandScript.tsx';

export type DialogProps = {
  id: string;
  title: ReactNode;
  icon?: DialogIcon;
  width?: DialogWidth;
  /** Rendered visible; otherwise hidden until something with data-dialog-open="<id>" opens it. */
  open?: boolean;
  /** Buttons row under the body. */
  actions?: ReactNode;
  /** A link that closes the dialog without JavaScript (e.g. the page without its ?confirm= flag). */
  closeHref?: string;
  /** Hide the × button (dialogs that must be answered). */
  dismissible?: boolean;
  /** Closing is ignored while this is set (the island also honours it). */
  processing?: boolean;
  children?: ReactNode;
};

export function Dialog(props: DialogProps) {
  const t = useT();
  const { id, title, icon, width = 'MD', open = false, actions, closeHref, dismissible = true, processing = false } = props;
  const titleId = `${id}-title`;
  const bodyId = `${id}-body`;
  return (
    <>
      <div className="dialog-layer" id={id} data-island="dialog" data-processing={processing ? '' : undefined} hidden={!open}>
        <section className={cx('dialog', `dialog--${width}`)} role="dialog" aria-modal="true" aria-labelledby={titleId} aria-describedby={bodyId}>
          {dismissible ? (
            closeHref ? (
              <a className="dialog__close" href={closeHref} data-dialog-close="" aria-label={t('ui.close')}>
                <Icon name="close" />
              </a>
            ) : (
              // Without JavaScript and without a closeHref there is nothing to close with: hidden until the island runs.
              <button type="button" className="dialog__close" data-dialog-close="" aria-label={t('ui.close')} hidden>
                <Icon name="close" />
              </button>
            )
          ) : null}
          {icon ? (
            <span className={cx('dialog__icon', `dialog__icon--${icon}`)}>
              <Icon name={icon === 'warn' ? 'warn' : icon} />
            </span>
          ) : null}
          <h2 className="dialog__title" id={titleId}>
            {title}
          </h2>
          <div className="dialog__body" id={bodyId}>
            {props.children}
          </div>
          {actions ? <div className="dialog__actions">{actions}</div> : null}
        </section>
      </div>
      <IslandScript name="dialogs" />
    </>
  );
}
