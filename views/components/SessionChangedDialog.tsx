import { useT, useView } from '../context.ts';
import { Button } from './Button.tsx';
import { AUTH_GATEWAY_SEGMENT } from './constants.ts';
import { Dialog } from './Dialog.tsx';

/** The dialog never appears on the authentication gateway (it is the page that changes sessions). */
export function isSessionDialogSuppressed(path: string): boolean {
  const pathname = path.split(/[?#]/)[0] ?? '';
  return pathname.includes(AUTH_GATEWAY_SEGMENT);
}

export type SessionChangedDialogProps = {
  /**
   * An opaque, non-secret fingerprint of the signed-in session (never the token). The island keeps it
   * in localStorage; when another tab writes a different one, this tab shows the dialog.
   */
  sessionKey?: string;
  open?: boolean;
  /** Defaults to the current request path. */
  path?: string;
};

export function SessionChangedDialog(props: SessionChangedDialogProps) {
  const t = useT();
  const { url } = useView();
  if (isSessionDialogSuppressed(props.path ?? url)) return null;
  return (
    <div data-island="session-watch" data-session-key={props.sessionKey ?? ''} className="session-watch">
      <Dialog
        id="session-changed"
        title={t('ui.sessionChanged.title')}
        icon="warn"
        width="SM"
        open={props.open}
        dismissible={false}
        actions={
          <Button href={url} variant="PRIMARY" size="MD" data-reload="">
            {t('ui.sessionChanged.reload')}
          </Button>
        }
      >
        <p>{t('ui.sessionChanged.text')}</p>
      </Dialog>
    </div>
  );
}
