import { AuthCard } from '../components/flow/AuthCard.tsx';
import { useCachedT } from '../components/flow/labels.ts';

export type DriveRequest = { action: 'open' | 'create'; ids: string[]; folderId?: string };

/** /open-drive with no document app configured: what Google Drive asked to open (or where to create). */
export function OpenDrivePage(props: { request: DriveRequest }) {
  const t = useCachedT();
  const { request } = props;
  return (
    <AuthCard page="open-drive" title={t('openDrive.title')}>
      <p>{t('openDrive.noDocumentApp')}</p>
      {request.action === 'create' ? (
        <p data-drive-action="create">{t('openDrive.wouldCreate', { folder: request.folderId ?? t('openDrive.rootFolder') })}</p>
      ) : (
        <>
          <p data-drive-action="open">{t('openDrive.wouldOpen')}</p>
          <ul className="open-drive__files">
            {request.ids.map((id) => (
              <li key={id}>
                <code>{id}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </AuthCard>
  );
}
