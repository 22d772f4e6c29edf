import type { UiContainer } from '../../../server/flows/types.ts';
import { useT } from '../../context.ts';
import { FlowForm } from '../flow/FlowForm.tsx';
import { INTERNAL_TRAITS, sectionUi } from './flow-sections.ts';
import { ProfileSection } from './ProfileSection.tsx';

export const NAME_FORM_ID = 'profile-name-form';

/** Name and (read-only) e-mail, saved through the settings flow's `profile` method. */
export function NameSection(props: { ui: UiContainer; action: string; withErrors: boolean; fieldErrors?: Record<string, string[]> }) {
  const t = useT();
  return (
    <ProfileSection id="profile" title={t('profile.name.title')} description={t('profile.name.description')}>
      <FlowForm
        id={NAME_FORM_ID}
        action={props.action}
        ui={sectionUi(props.ui, 'profile', { withErrors: props.withErrors, readOnly: ['traits.email'] })}
        omit={INTERNAL_TRAITS}
        fieldErrors={props.fieldErrors}
        submitLabels={{ 'method:profile': t('profile.name.save') }}
      />
    </ProfileSection>
  );
}
