import { ROUTES } from '../../../core/routes.ts';
import { useT, useView } from '../../context.ts';
import { Button } from '../Button.tsx';
import { ProfileSection } from './ProfileSection.tsx';

/**
 * "Sign out on every device" (spec §7 `auth/force-log-out`): a plain form post with our CSRF token. The
 * backend revokes every session of the account; the app's open pages elsewhere get `force-reload`
 * (decision 160) and this browser lands on the sign-in page.
 */
export function SignOutEverywhereSection() {
  const t = useT();
  const { csrfToken } = useView();
  return (
    <ProfileSection id="sign-out-everywhere" title={t('profile.signOutEverywhere.title')} description={t('profile.signOutEverywhere.description')}>
      <form method="post" action={ROUTES.signOutEverywhere} id="sign-out-everywhere-form">
        {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
        <Button variant="SECONDARY" size="MD">
          {t('profile.signOutEverywhere.button')}
        </Button>
      </form>
    </ProfileSection>
  );
}
