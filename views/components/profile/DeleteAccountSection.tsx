import { ROUTES } from '../../../core/routes.ts';
import { useT } from '../../context.ts';
import { Button } from '../Button.tsx';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { useFixedT } from './fixed-texts.ts';
import { ProfileSection } from './ProfileSection.tsx';

export const DELETE_DIALOG_ID = 'delete-account-dialog';

/**
 * Account deletion behind a confirmation. With JavaScript the button opens the dialog in place;
 * without it, the button is a link to `?confirm=delete-account`, which renders the same dialog open
 * as a page whose OK is a plain form post and whose Cancel is a link back.
 */
export function DeleteAccountSection(props: { confirmOpen: boolean; graceDays: number; cancelHref: string }) {
  const t = useT();
  const fixedT = useFixedT();
  return (
    <ProfileSection
      id="delete-account"
      className="profile-danger"
      title={t('profile.delete.title')}
      description={fixedT('profile.delete.description', { days: props.graceDays })}
    >
      <Button href={`${ROUTES.profile}?confirm=delete-account#${DELETE_DIALOG_ID}`} variant="SECONDARY" size="MD" data-dialog-open={DELETE_DIALOG_ID}>
        {t('profile.delete.button')}
      </Button>
      <ConfirmDialog
        id={DELETE_DIALOG_ID}
        title={t('profile.delete.confirmTitle')}
        icon="warn"
        danger
        open={props.confirmOpen}
        formAction={ROUTES.deleteAccount}
        cancelHref={props.cancelHref}
        confirmText={t('profile.delete.confirm')}
        cancelText={t('profile.delete.cancel')}
      >
        <p>{fixedT('profile.delete.confirmText', { days: props.graceDays })}</p>
      </ConfirmDialog>
    </ProfileSection>
  );
}
