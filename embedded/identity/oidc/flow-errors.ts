// Where a social sign-in error goes (Strategy.forwardError → the flow's error handler, v1.3.1): a 400
// or a validation failure is written into the flow (its messages reset, the new ones added, the nodes
// sorted) and the browser sent back to the flow's UI (303; 302 for registration) or a JSON caller given
// the flow with 400; any other error leaves the flow alone and goes to the error UI (or is the JSON
// answer). Errors with no flow go to the error UI too.
import { forwardError } from '../error-ui.ts';
import { KratosError } from '../errors.ts';
import { flowUiUrl, saveFlow, serializeFlow, setUiMessages, type Flow } from '../flows.ts';
import { json, redirect, type Ctx, type Reply } from '../http.ts';
import { publicIdentity } from '../identities.ts';
import { reasonMessage, type UiText } from '../messages.ts';
import { LOGIN_GROUPS, sortNodes, type UiNode } from '../nodes.ts';
import type { Service } from '../service.ts';

/** A schema.ValidationError: messages for the flow (per node, or for the whole form). */
export class FormFailure extends Error {
  messages: UiText[];
  fields: Record<string, UiText[]>;
  constructor(messages: UiText[], fields: Record<string, UiText[]> = {}) {
    super('validation failed');
    this.messages = messages;
    this.fields = fields;
  }
}

export type OidcError = KratosError | FormFailure;

/** Anything thrown while handling a social sign-in, as one of the two kinds above. */
export function asOidcError(e: unknown): OidcError {
  if (e instanceof KratosError || e instanceof FormFailure) return e;
  console.error('[identity] unexpected error in social sign-in', e);
  return new KratosError(500, { message: (e as Error)?.message || 'An internal server error occurred, please contact the system administrator' });
}

/** Registration's SortNodes: oidc first, the traits in schema order with the password after the first. */
export function sortRegistrationNodes(svc: Service, nodes: UiNode[]): UiNode[] {
  const traits = svc.schema.props.map(([n]) => `traits.${n}`);
  const keys = traits.length ? [traits[0]!, 'password', ...traits.slice(1)] : ['password'];
  return sortNodes(nodes, ['oidc', 'default', 'webauthn', 'passkey', 'code', 'password', 'profile'], keys);
}

function sortFor(svc: Service, f: Flow): UiNode[] {
  if (f.kind === 'login') return sortNodes(f.ui.nodes, LOGIN_GROUPS, ['csrf_token', 'identifier', 'password']);
  if (f.kind === 'registration') return sortRegistrationNodes(svc, f.ui.nodes);
  return f.ui.nodes;
}

function serialize(svc: Service, ctx: Ctx, f: Flow): Record<string, unknown> {
  if (f.kind !== 'settings') return serializeFlow(svc, ctx, f);
  const i = f.identity_id ? svc.store.getIdentity(f.identity_id) : undefined;
  return serializeFlow(svc, ctx, f, i ? publicIdentity(svc, i) : null);
}

/** The flow as a form error leaves it: saved, then shown to the browser or given to a JSON caller (400). */
export function flowFormReply(svc: Service, ctx: Ctx, f: Flow): Reply {
  saveFlow(svc, f);
  if (f.type === 'browser' && !ctx.isJSON) return redirect(f.kind === 'registration' ? 302 : 303, flowUiUrl(svc, f.kind, f.id));
  return json(400, serialize(svc, ctx, f));
}

/** Strategy.forwardError for a flow of this request. */
export function writeFlowError(svc: Service, ctx: Ctx, f: Flow, e: unknown): Reply {
  const err = asOidcError(e);
  if (err instanceof KratosError && err.code !== 400) return forwardError(svc, ctx, err);
  // ResetMessages, then ParseError.
  for (const n of f.ui.nodes) n.messages = [];
  if (err instanceof KratosError) {
    setUiMessages(f, [reasonMessage(err.reason ?? err.message)]);
  } else {
    const general = [...err.messages];
    for (const [name, ms] of Object.entries(err.fields)) {
      const n = f.ui.nodes.find((x) => x.attributes.name === name && x.attributes.type !== 'submit');
      if (n) n.messages.push(...ms);
      else general.push(...ms);
    }
    setUiMessages(f, general);
  }
  f.ui.nodes = sortFor(svc, f);
  return flowFormReply(svc, ctx, f);
}
