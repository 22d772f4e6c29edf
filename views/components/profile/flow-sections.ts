// Splits one Kratos settings flow into the page's separate forms (name, password; the linked logins
// have their own, views/components/profile/LinkedLoginsSection.tsx).
// Each form keeps the flow's CSRF node (group `default`) and its own group's nodes; flow-level error
// messages go only to the form that was just submitted, so one failure is not shown three times.
import type { UiContainer, UiNode } from '../../../core/kratos/types.ts';

/** Traits the app maintains itself: never rendered as fields. */
export const INTERNAL_TRAITS = ['traits.avatarRemoteId', 'traits.loginService'] as const;

export type SectionOptions = {
  /** Give this form the flow's form-level error messages. */
  withErrors?: boolean;
  /** Render these fields disabled (shown, not editable, not submitted). */
  readOnly?: readonly string[];
};

export function sectionUi(ui: UiContainer, group: string, options: SectionOptions = {}): UiContainer {
  const readOnly = new Set(options.readOnly ?? []);
  const nodes: UiNode[] = ui.nodes
    .filter((node) => node.group === 'default' || node.group === group)
    .map((node) => (readOnly.has(node.attributes.name ?? '') ? { ...node, attributes: { ...node.attributes, disabled: true, required: false } } : node));
  const messages = options.withErrors ? (ui.messages ?? []).filter((message) => message.type === 'error') : [];
  return { ...ui, nodes, messages };
}
