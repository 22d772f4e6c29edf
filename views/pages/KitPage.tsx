import { LIMITS } from '../../core/limits.ts';
import { useT } from '../context.ts';
import { Alert } from '../components/Alert.tsx';
import { Avatar } from '../components/Avatar.tsx';
import { Button } from '../components/Button.tsx';
import { Checkbox } from '../components/Checkbox.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { AVATAR_SIZES, BUTTON_SIZES, BUTTON_VARIANTS, DIALOG_ICONS, TOAST_VARIANTS, type AvatarSize, type ButtonSize } from '../components/constants.ts';
import { CrashScreen } from '../components/CrashScreen.tsx';
import { Dialog } from '../components/Dialog.tsx';
import { Icon } from '../components/Icon.tsx';
import { LanguageSwitcher } from '../components/LanguageSwitcher.tsx';
import { LoadingOverlay } from '../components/LoadingOverlay.tsx';
import { PasswordInput } from '../components/PasswordInput.tsx';
import { Popover } from '../components/Popover.tsx';
import { ProgressBar } from '../components/ProgressBar.tsx';
import { SessionChangedDialog } from '../components/SessionChangedDialog.tsx';
import { TextInput } from '../components/TextInput.tsx';
import type { ToastItem } from '../components/Toasts.tsx';
import { Tooltip } from '../components/Tooltip.tsx';
import { useView } from '../context.ts';

export type KitFormState = { name?: string; error?: string };

/** The demo form of the kit page: an enhanced form with one required field (see server/routes/kit.ts). */
export function KitForm(props: KitFormState) {
  const t = useT();
  const { csrfToken } = useView();
  return (
    <form id="kit-form" className="kit-form" method="post" action="/__test/kit/form" data-enhance="" noValidate>
      {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
      {props.error ? <Alert variant="error">{props.error}</Alert> : null}
      <TextInput
        id="kit-name"
        name="name"
        label={t('ui.kit.nameLabel')}
        hint={t('ui.kit.nameHint')}
        defaultValue={props.name}
        error={props.error}
        autoComplete="name"
        maxLength={LIMITS.nameMax}
        clearable
      />
      <PasswordInput id="kit-password" name="password" label={t('ui.kit.passwordLabel')} autoComplete="new-password" maxLength={LIMITS.passwordMax} />
      <div className="row">
        <Button type="submit" name="intent" value="save" size="LG">
          {t('ui.kit.submit')}
        </Button>
        <Button type="submit" name="intent" value="fail" variant="TERTIARY" size="LG" id="kit-fail">
          {t('ui.kit.fail')}
        </Button>
      </div>
    </form>
  );
}

/** Every UI kit component on one page, for people and for the kit's browser test (/__test/kit). */
/** The toasts the kit page shows: a welcome, and the name just saved by the demo form. */
export function kitToasts(t: (key: string, options?: Record<string, unknown>) => string, saved?: string): ToastItem[] {
  return [
    { id: 'kit-welcome', message: t('ui.kit.toastMessage'), variant: 'success' },
    ...(saved ? [{ id: 'kit-saved', message: t('ui.kit.saved', { name: saved }), variant: 'info' as const }] : []),
  ];
}

export function KitPage(props: { form?: KitFormState; saved?: string }) {
  const t = useT();
  return (
    <>
      <main className="page page--wide" id="kit">
        <header className="row">
          <h1>{t('ui.kit.title')}</h1>
          <LanguageSwitcher />
        </header>

        <section className="kit-section" id="kit-buttons">
          <h2>{t('ui.kit.buttons')}</h2>
          <div className="row">
            {BUTTON_VARIANTS.map((variant) => (
              <Button key={variant} type="button" variant={variant}>
                {variant}
              </Button>
            ))}
          </div>
          <div className="row">
            {(Object.keys(BUTTON_SIZES) as ButtonSize[]).map((size) => (
              <Button key={size} type="button" size={size}>
                {size}
              </Button>
            ))}
          </div>
          <div className="row">
            <Button type="button" loading id="kit-loading">
              {t('ui.loading')}
            </Button>
            <Button type="button" disabled>
              {t('ui.ok')}
            </Button>
            <Button href="/__test/kit" variant="HYPERLINK">
              {t('ui.kit.title')}
            </Button>
            <Button type="button" variant="SECONDARY" fullWidth>
              {t('ui.cancel')}
            </Button>
          </div>
        </section>

        <div className="kit-grid">
          <section className="kit-section" id="kit-fields">
            <h2>{t('ui.kit.fields')}</h2>
            <KitForm {...props.form} />
            <TextInput id="kit-email" name="email" type="email" label={t('ui.kit.emailLabel')} defaultValue="ada@example.com" readOnly clearable />
            <Checkbox id="kit-remember" name="remember" label={t('ui.kit.remember')} />
            <Checkbox id="kit-remember-on" name="remember-on" label={t('ui.kit.remember')} checked />
            <Checkbox id="kit-all" name="all" label={t('ui.kit.termsLabel')} indeterminate />
          </section>

          <section className="kit-section" id="kit-feedback">
            {TOAST_VARIANTS.map((variant) => (
              <Alert key={variant} variant={variant}>
                {variant === 'error' ? t('ui.errors.server') : t('ui.kit.toastMessage')}
              </Alert>
            ))}
            <div className="row">
              {(Object.keys(AVATAR_SIZES) as AvatarSize[]).map((size) => (
                <Avatar key={size} name="Ada Lovelace" size={size} />
              ))}
              <Avatar name="Grace Hopper" src="/logo.svg" size="XL" variant="rounded" />
            </div>
            <div className="row">
              <Tooltip id="kit-tooltip" content={t('ui.kit.tooltipText')}>
                {t('ui.kit.tooltipTrigger')}
              </Tooltip>
              <Popover id="kit-popover" label={t('ui.kit.popoverLabel')}>
                <p>{t('ui.kit.popoverText')}</p>
              </Popover>
            </div>
            <ProgressBar label={t('ui.loading')} />
          </section>

          <section className="kit-section" id="kit-dialogs">
            <div className="row">
              <Button type="button" variant="SECONDARY" data-dialog-open="kit-dialog">
                {t('ui.kit.openDialog')}
              </Button>
              <Button type="button" variant="SECONDARY" data-dialog-open="kit-confirm" id="kit-open-confirm">
                {t('ui.kit.delete')}
              </Button>
              <Button type="button" variant="SECONDARY" data-overlay-open="kit-overlay" data-overlay-finish-after="1500">
                {t('ui.kit.showOverlay')}
              </Button>
            </div>
            <p className="row">
              {DIALOG_ICONS.map((icon) => (
                <span key={icon} className={`dialog__icon dialog__icon--${icon}`}>
                  <Icon name={icon} />
                </span>
              ))}
            </p>
            <CrashScreen embedded />
          </section>
        </div>
      </main>
      <Dialog id="kit-dialog" title={t('ui.kit.dialogTitle')} icon="info" width="MDX">
        <p>{t('ui.kit.dialogText')}</p>
      </Dialog>
      <ConfirmDialog id="kit-confirm" title={t('ui.kit.dialogTitle')} icon="error" formAction="/__test/kit/confirm" danger confirmText={t('ui.kit.delete')}>
        <p>{t('ui.kit.dialogText')}</p>
      </ConfirmDialog>
      <SessionChangedDialog sessionKey="kit-demo-session" />
      <LoadingOverlay id="kit-overlay" open={false} />
    </>
  );
}
