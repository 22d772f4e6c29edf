/**
 * One Kratos node → markup, chosen by `attributes.node_type`, then input `type`, then `group`:
 *   input hidden            → <input type="hidden"> (csrf_token, step-2 traits, method markers)
 *   input password          → PasswordInput
 *   input checkbox          → Checkbox
 *   input submit/button     → Button (oidc/saml group: a provider button `name=provider value=<id>` with the
 *                             provider's mark and our label; Kratos's "Continue" (1040003) of a social
 *                             sign-up that needs more traits is the form's main button)
 *   input other types       → TextInput (text, email, tel, url, number, date…)
 *   a                       → link button; text → paragraph; img → image
 *   script, div, unknown    → nothing (WebAuthn scripts would need their own island and CSP review)
 */
import type { Translate } from '../../../core/kratos/messages.ts';
import type { UiNode } from '../../../core/kratos/types.ts';
import { Button } from '../Button.tsx';
import { Checkbox } from '../Checkbox.tsx';
import { PasswordInput } from '../PasswordInput.tsx';
import { TextInput } from '../TextInput.tsx';
import { nodeLabel, providerName, translateText } from './labels.ts';
import { ProviderMark, providerBrand } from './ProviderMark.tsx';
import { isSocialContinue, knownProvider } from '../../../core/kratos/social.ts';
import { LIMITS } from '../../../core/limits.ts';

/**
 * Kratos gives no `maxlength` for traits (its identity schema's `maxLength` is only checked after a
 * post), so the fields with a spec §5 limit get it here: the browser stops at the limit instead of
 * answering "too long" after the form was sent. Not the password: a sign-in must send what was typed.
 */
const FIELD_MAX_LENGTH: Readonly<Record<string, number>> = {
  'traits.name': LIMITS.nameMax,
  'traits.email': LIMITS.emailMax,
  identifier: LIMITS.emailMax,
  email: LIMITS.emailMax,
};

export function isSubmitNode(node: UiNode): boolean {
  const type = node.attributes.type;
  return node.attributes.node_type === 'input' && (type === 'submit' || type === 'button');
}

/** Kratos's "Back" (screen=previous) and "Resend code": never blocked by empty required fields, never the form's main action. */
export function isSecondarySubmit(node: UiNode): boolean {
  const name = node.attributes.name ?? '';
  return name === 'screen' || (node.group === 'code' && name !== 'method');
}

export function nodeKey(node: UiNode): string {
  const a = node.attributes;
  return `${node.group}:${a.name ?? a.id ?? a.node_type}:${a.type === 'submit' ? String(a.value ?? '') : ''}`;
}

/** A DOM id that is stable per node and safe in CSS selectors (`traits.email` → `field-traits-email`). */
export function fieldId(name: string): string {
  return `field-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

function stringValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : String(value);
}

/** Kratos's label ids on provider buttons whose text we write ourselves (known providers only). */
const SIGN_IN_WITH = 1010002;
const SIGN_UP_WITH = 1040002;
const CONFIRM_WITH = 1010018;

/** The provider's name as we write it (`authPage.providers.<id>`), else Kratos's label or the id. */
export function providerDisplayName(t: Translate, node: UiNode): string {
  const known = knownProvider(node.attributes.value);
  if (known) {
    const key = `authPage.providers.${known}`;
    const name = t(key);
    if (name && name !== key) return name;
  }
  return providerName(node);
}

/** Our text for a provider button ("Continue with Google", "Confirm with Microsoft"); Kratos's for unknown providers. */
export function socialButtonLabel(t: Translate, node: UiNode): string {
  const id = node.meta.label?.id;
  if (knownProvider(node.attributes.value)) {
    const provider = providerDisplayName(t, node);
    if (id === CONFIRM_WITH) return t('accountLink.confirmWith', { provider });
    if (id === SIGN_IN_WITH || id === SIGN_UP_WITH || id === undefined) return t('authPage.continueWith', { provider });
  }
  return nodeLabel(t, node) || providerName(node);
}

export type FlowNodeProps = {
  node: UiNode;
  t: Translate;
  /** Translated errors to show under the field. */
  errors: readonly string[];
  prefill?: string;
  autoFocus?: boolean;
  /** Overrides the submit button's label. */
  label?: string;
};

export function FlowNode(props: FlowNodeProps) {
  const { node, t } = props;
  const a = node.attributes;
  switch (a.node_type) {
    case 'input':
      break;
    case 'a':
      return (
        <Button href={a.href ?? '#'} variant="PRIMARY" fullWidth id={a.id}>
          {translateText(t, a.title)}
        </Button>
      );
    case 'text':
      return (
        <p className="flow-form__text" id={a.id}>
          {translateText(t, a.text)}
        </p>
      );
    case 'img':
      return a.src ? <img className="flow-form__image" src={a.src} id={a.id} width={a.width} height={a.height} alt={nodeLabel(t, node)} /> : null;
    default:
      return null;
  }

  const name = a.name ?? '';
  const value = stringValue(a.value);
  const error = props.errors.length > 0 ? props.errors.join(' ') : undefined;

  if (a.type === 'hidden') return <input type="hidden" name={name} value={value ?? ''} />;

  if (isSubmitNode(node)) {
    const social = node.group === 'oidc' || node.group === 'saml';
    if (social && isSocialContinue(node)) {
      return (
        <Button type="submit" variant="PRIMARY" fullWidth name={name} value={value} disabled={a.disabled} data-provider={value}>
          {props.label ?? t('social.completeSubmit')}
        </Button>
      );
    }
    if (social) {
      const provider = String(a.value ?? '');
      return (
        <Button
          type="submit"
          variant="SECONDARY"
          fullWidth
          name={name}
          value={provider}
          disabled={a.disabled}
          formNoValidate
          className={`btn--social btn--social-${providerBrand(provider)}`}
          data-provider={provider}
        >
          <ProviderMark provider={provider} />
          <span className="btn--social__label">{props.label ?? socialButtonLabel(t, node)}</span>
        </Button>
      );
    }
    const secondary = isSecondarySubmit(node);
    return (
      <Button
        type="submit"
        variant={secondary ? 'TERTIARY' : 'PRIMARY'}
        fullWidth
        name={name}
        value={value}
        disabled={a.disabled}
        formNoValidate={secondary || undefined}
      >
        {props.label ?? nodeLabel(t, node)}
      </Button>
    );
  }

  const id = fieldId(name);
  const label = nodeLabel(t, node);
  if (a.type === 'checkbox') {
    return <Checkbox id={id} name={name} value="true" label={label} checked={value === 'true'} error={error} required={a.required} disabled={a.disabled} />;
  }
  const shared = {
    id,
    name,
    label,
    error,
    required: a.required,
    disabled: a.disabled,
    autoComplete: a.autocomplete,
    maxLength: a.maxlength ?? FIELD_MAX_LENGTH[name],
    pattern: a.pattern,
    autoFocus: props.autoFocus || undefined,
  };
  if (a.type === 'password') return <PasswordInput {...shared} />;
  return <TextInput {...shared} type={a.type ?? 'text'} defaultValue={value || props.prefill || undefined} />;
}
