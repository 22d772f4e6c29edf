import { ROUTES } from '../../../core/routes.ts';
import { AVATAR_ACCEPT, AVATAR_MAX_BYTES, AVATAR_MAX_MEGABYTES } from '../../../core/avatar.ts';
import { useT, useView } from '../../context.ts';
import { Alert } from '../Alert.tsx';
import { Avatar } from '../Avatar.tsx';
import { Button } from '../Button.tsx';
import { IslandScript } from '../IslandScript.tsx';
import { useFixedT } from './fixed-texts.ts';
import { ProfileSection } from './ProfileSection.tsx';

/**
 * Picture upload and removal. Without JavaScript: a multipart form and a remove form, both plain posts.
 * The avatar-upload island adds the preview, the checks before sending (size, one file, PNG/JPEG by
 * signature) and the instant remove with roll-back; its texts travel in data-text-* attributes.
 */
export function AvatarSection(props: { name: string; avatarUrl?: string | null; error?: string; unavailable?: boolean; flowId?: string }) {
  const t = useT();
  const fixedT = useFixedT();
  // The settings flow travels along, so an answer (or a refused upload) comes back to the same page.
  const back = props.flowId ? `?flow=${encodeURIComponent(props.flowId)}` : '';
  const { csrfToken } = useView();
  const limit = { limit: AVATAR_MAX_MEGABYTES };
  return (
    <ProfileSection id="avatar" title={t('profile.avatar.title')} description={fixedT('profile.avatar.description', limit)}>
      <div
        className="profile-avatar"
        data-island="avatar-upload"
        data-max-bytes={AVATAR_MAX_BYTES}
        data-text-oversize={fixedT('errorMessage.avatarOversize', limit)}
        data-text-one-file={t('errorMessage.onlyOnFileAllowed')}
        data-text-type={t('errorMessage.validFile')}
        data-text-none={t('errorMessage.fileTypeNotExist')}
        data-text-uploaded={t('profile.avatar.uploaded')}
        data-text-removed={t('profile.avatar.removed')}
        data-text-failed={t('errorMessage.unknownError')}
        data-text-preview={t('profile.avatar.preview')}
      >
        <div className="profile-avatar__picture" data-avatar-picture="" data-user-name={props.name}>
          <Avatar name={props.name} src={props.avatarUrl ?? undefined} size="XXL" />
        </div>
        <div className="profile-avatar__forms">
          <div className="profile-avatar__error" data-avatar-error="" aria-live="assertive">
            {props.error ? <Alert variant="error">{props.error}</Alert> : null}
            {props.unavailable ? <Alert variant="warning">{t('profile.avatar.unavailable')}</Alert> : null}
          </div>
          <form id="avatar-upload-form" className="profile-avatar__upload" method="post" action={ROUTES.avatarUpload + back} encType="multipart/form-data">
            {/* First in the body: the server checks it before it reads the file. */}
            {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
            {/* A plain, styled file input without JavaScript; the island makes the box a drop zone too. */}
            <div className="file-drop" data-drop-zone="">
              <label className="profile-avatar__label" htmlFor="avatar-file">
                {t('profile.avatar.choose')}
              </label>
              <input className="profile-avatar__file" id="avatar-file" type="file" name="file" accept={AVATAR_ACCEPT} required aria-describedby="avatar-hint" />
              <p className="file-drop__cue" hidden>
                {t('profile.avatar.drop')}
              </p>
            </div>
            <p className="field__hint" id="avatar-hint">
              {fixedT('profile.avatar.hint', limit)}
            </p>
            <Button type="submit" variant="PRIMARY" size="MD" disabled={props.unavailable}>
              {t('profile.avatar.upload')}
            </Button>
          </form>
          <form id="avatar-remove-form" className="profile-avatar__remove" method="post" action={ROUTES.avatarRemove + back} hidden={!props.avatarUrl}>
            {csrfToken ? <input type="hidden" name="_csrf" value={csrfToken} /> : null}
            <Button type="submit" variant="TERTIARY" size="MD" disabled={props.unavailable}>
              {t('profile.avatar.remove')}
            </Button>
          </form>
        </div>
      </div>
      <IslandScript name="avatar" />
    </ProfileSection>
  );
}
