/**
 * The generic Kratos form: renders whatever nodes a flow carries, so a new method or field shows up
 * without new code. Used by sign-in, sign-up, verification, recovery and settings screens.
 *
 *   <FlowForm id="sign-in-form" action="/sign-in?flow=…" ui={flow.ui}
 *             omit={['traits.loginService']} values={{ identifier: 'a@b.c' }}
 *             fieldErrors={{ password: ['…'] }} submitLabels={{ 'method:password': 'Sign in' }}
 *             beforeSubmit={<a href="/forgot-password">…</a>} socialDivider="or" />
 *
 * Layout: `header` → form-level messages (Alert) → social provider buttons from `oidc`/`saml` nodes → divider →
 * fields in Kratos's order (hidden ones, csrf_token included, as hidden inputs) → `beforeSubmit` →
 * submit buttons. Messages sit under their field (see server/flows/messages.ts `placeMessages`).
 * The form posts to OUR handler (`action`), never to Kratos. `data-island="form"` lets the form island
 * enhance it (X-Enhance: 1, swap this element by id); without JavaScript it is a plain form post.
 */
import { Fragment, type ReactNode } from 'react';
import { placeMessages, type Translate } from '../../../core/kratos/messages.ts';
import type { UiContainer, UiNode, UiText } from '../../../core/kratos/types.ts';
import { Alert } from '../Alert.tsx';
import { FlowNode, isSecondarySubmit, isSubmitNode, nodeKey } from './FlowNode.tsx';
import { isProviderButton } from '../../../core/kratos/social.ts';
import { translateText, useCachedT } from './labels.ts';

export type FlowFormProps = {
  id: string;
  action: string;
  ui: UiContainer;
  /** Node names never rendered (internal traits the app sets itself). */
  omit?: readonly string[];
  /** Prefill for inputs Kratos left empty (e.g. the e-mail from `loginHint`). */
  values?: Readonly<Record<string, string | undefined>>;
  /** Extra, already translated errors by node name (our validation before Kratos). */
  fieldErrors?: Readonly<Record<string, readonly string[]>>;
  /** Extra, already translated form-level errors. */
  formErrors?: readonly string[];
  /** Submit labels by `name:value` (e.g. `method:password`), already translated. */
  submitLabels?: Readonly<Record<string, string>>;
  /** Node name to focus first (spec `highlight`). */
  highlight?: string;
  /** First inside the form, so an enhanced swap replaces it too (e.g. the account-link sequence). */
  header?: ReactNode;
  beforeSubmit?: ReactNode;
  socialDivider?: string;
  /** Shown under the provider buttons (e.g. what continuing with a provider means for the terms). */
  socialNote?: ReactNode;
  /** A follow-up link for a form message (e.g. "resend verification" under 4000010). */
  messageAction?: (message: UiText) => ReactNode;
  /** What follows a field, by the field's name (e.g. "go to sign in" under an e-mail that has an account). */
  afterField?: Readonly<Record<string, ReactNode>>;
  className?: string;
};

/** A provider button (Kratos's "Continue" of a social sign-up that needs more traits is the main button instead). */
export const isSocialNode: (node: UiNode) => boolean = isProviderButton;

function alertVariant(type: string): 'error' | 'success' | 'info' {
  return type === 'error' ? 'error' : type === 'success' ? 'success' : 'info';
}

function FormMessages(props: { messages: UiText[]; extra: readonly string[]; t: Translate; action?: FlowFormProps['messageAction'] }) {
  if (props.messages.length === 0 && props.extra.length === 0) return null;
  return (
    <div className="flow-form__messages">
      {props.messages.map((message, index) => (
        <Alert key={`${message.id}-${index}`} variant={alertVariant(message.type)} data-message-id={message.id}>
          <p>{translateText(props.t, message)}</p>
          {props.action?.(message)}
        </Alert>
      ))}
      {props.extra.map((text, index) => (
        <Alert key={`extra-${index}`} variant="error">
          <p>{text}</p>
        </Alert>
      ))}
    </div>
  );
}

/**
 * Enter in a field presses the form's first submit button, which on a form with provider buttons is the
 * first provider's ("Continue with Apple" took a typed password to Apple's sign-in). A copy of the main
 * button first in the form, out of sight and of the tab order, makes Enter do what the form is for
 * (decision 250). An <input>, not a <button>: whatever finds the form's buttons finds only the ones shown.
 */
function DefaultSubmit(props: { node: UiNode }) {
  const a = props.node.attributes;
  return (
    <input
      type="submit"
      name={a.name}
      defaultValue={String(a.value ?? '')}
      className="visually-hidden"
      tabIndex={-1}
      aria-hidden="true"
      data-default-submit=""
    />
  );
}

export function FlowForm(props: FlowFormProps) {
  const t = useCachedT();
  const omit = new Set(props.omit ?? []);
  const nodes = props.ui.nodes.filter((node) => !omit.has(node.attributes.name ?? ''));
  const placed = placeMessages({ ui: { ...props.ui, nodes } });
  const social = nodes.filter(isSocialNode);
  const fields = nodes.filter((node) => !isSocialNode(node) && !isSubmitNode(node));
  const submits = nodes.filter((node) => !isSocialNode(node) && isSubmitNode(node));
  const main = submits.find((node) => !isSecondarySubmit(node));
  const firstSubmit = social[0] ?? submits[0];
  const highlight = props.highlight && fields.some((node) => node.attributes.name === props.highlight) ? props.highlight : undefined;

  const errorsFor = (node: UiNode): string[] => {
    const name = node.attributes.name ?? '';
    const fromKratos = (placed.fields[name] ?? []).map((message) => translateText(t, message));
    return [...fromKratos, ...(props.fieldErrors?.[name] ?? [])];
  };

  return (
    <form id={props.id} className={['flow-form', props.className].filter(Boolean).join(' ')} method="post" action={props.action} data-island="form">
      {main && firstSubmit !== main ? <DefaultSubmit node={main} /> : null}
      {props.header}
      <FormMessages messages={placed.form} extra={props.formErrors ?? []} t={t} action={props.messageAction} />
      {social.length > 0 ? (
        <div className="flow-form__social">
          {social.map((node) => (
            <FlowNode key={nodeKey(node)} node={node} t={t} errors={[]} />
          ))}
          {props.socialNote}
        </div>
      ) : null}
      {social.length > 0 && props.socialDivider && fields.some((node) => node.attributes.type !== 'hidden') ? (
        <p className="flow-form__divider">
          <span>{props.socialDivider}</span>
        </p>
      ) : null}
      {fields.map((node) => {
        const field = (
          <FlowNode
            key={nodeKey(node)}
            node={node}
            t={t}
            errors={errorsFor(node)}
            prefill={props.values?.[node.attributes.name ?? '']}
            // eslint-disable-next-line jsx-a11y/no-autofocus -- only when the link asks for it (spec §2 `highlight`): the caret goes where the user was sent
            autoFocus={highlight === node.attributes.name}
          />
        );
        const after = props.afterField?.[node.attributes.name ?? ''];
        // Wrapped only when something follows: the page's element tree (a kept render's key) stays as small as it was.
        return after ? (
          <Fragment key={nodeKey(node)}>
            {field}
            {after}
          </Fragment>
        ) : (
          field
        );
      })}
      {props.beforeSubmit}
      {submits.length > 0 ? (
        <div className="flow-form__actions">
          {submits.map((node) => (
            <FlowNode
              key={nodeKey(node)}
              node={node}
              t={t}
              errors={[]}
              label={props.submitLabels?.[`${node.attributes.name}:${String(node.attributes.value ?? '')}`]}
            />
          ))}
        </div>
      ) : null}
    </form>
  );
}
