import type { ReactNode } from 'react';
import { useT, useView } from '../context.ts';
import { Button } from './Button.tsx';
import type { DialogIcon, DialogWidth } from './constants.ts';
import { Dialog } from './Dialog.tsx';

export type ConfirmDialogProps = {
  id: string;
  title: ReactNode;
  icon?: DialogIcon;
  width?: DialogWidth;
  open?: boolean;
  /** Defaults to the translated "OK". */
  confirmText?: ReactNode;
  /** Defaults to the translated "Cancel". */
  cancelText?: ReactNode;
  /** Both buttons disabled, a spinner in place of the confirm text, closing ignored. */
  processing?: boolean;
  /** A destructive confirmation: the confirm button in the danger style. */
  danger?: boolean;
  /** Where the confirmation form posts (an enhanced form: fetch with JavaScript, a plain post without). */
  formAction: string;
  /** Where Cancel leads without JavaScript; defaults to the current path without its query. */
  cancelHref?: string;
  /** Extra hidden fields of the confirmation form. */
  fields?: Record<string, string>;
  children?: ReactNode;
};

/** A question with OK/Cancel that is a plain form: it works as a page without JavaScript. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const t = useT();
  const { url, csrfToken } = useView();
  const { id, processing = false } = props;
  const cancelHref = props.cancelHref ?? url.split('?')[0] ?? '/';
  return (
    <Dialog id={id} title={props.title} icon={props.icon} width={props.width ?? 'SM'} open={props.open} processing={processing} closeHref={cancelHref}>
      <form className="dialog__form" id={`${id}-form`} method="post" action={props.formAction} data-enhance="">
        {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
        {Object.entries(props.fields ?? {}).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {props.children}
        <div className="dialog__actions">
          <Button variant="SECONDARY" size="MD" href={cancelHref} data-dialog-close="" disabled={processing}>
            {props.cancelText ?? t('ui.cancel')}
          </Button>
          <Button variant={props.danger ? 'DANGER' : 'PRIMARY'} size="MD" type="submit" loading={processing}>
            {props.confirmText ?? t('ui.ok')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
