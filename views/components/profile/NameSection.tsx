import { FORM_IDS } from '../../../core/form-ids.ts';
import type { UiContainer } from '../../../core/kratos/types.ts';
import { useT } from '../../context.ts';
import { FlowForm } from '../flow/FlowForm.tsx';
import { INTERNAL_TRAITS, sectionUi } from './flow-sections.ts';
import { ProfileSection } from './ProfileSection.tsx';

/** Name and (read-only) e-mail, saved through the settings flow's `profile` method. */
export function NameSection(props: { ui: UiContainer; action: string; withErrors: boolean; fieldErrors?: Record<string, string[]> }) {
  const t = useT();
  return (
    <ProfileSection id="profile" title={t('profile.name.title')} description={t('profile.name.description')}>
      <FlowForm
        id={FORM_IDS.profileName}
        action={props.action}
        ui={sectionUi(props.ui, 'profile', { withErrors: props.withErrors, readOnly: ['traits.email'] })}
        omit={INTERNAL_TRAITS}
        fieldErrors={props.fieldErrors}
        submitLabels={{ 'method:profile': t('profile.name.save') }}
      />
    </ProfileSection>
  );
}
