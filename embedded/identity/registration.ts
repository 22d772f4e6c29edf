// Registration flow (contract §5.2, §5.3, §7): styles profile_first (two steps) and unified.
import { forwardError } from './error-ui.ts';
import { errors, KratosError } from './errors.ts';
import { acceptWithSession, getLoginRequest, loginChallengeOf, setRequestQuery } from './oauth2.ts';
import { goEncodeQuery } from './request-url.ts';
import { json, redirect, str, type Ctx, type Reply } from './http.ts';
import { expiredMessage, msg, type UiText } from './messages.ts';
import { csrfNode, input, traitNodes, type UiNode } from './nodes.ts';
import {
  checkReturnTo,
  expiredOnSubmit,
  flowUiUrl,
  isExpired,
  loadFlow,
  newFlow,
  returnUrl,
  saveFlow,
  serializeFlow,
  setUiMessages,
  submitFlowId,
  type Flow,
} from './flows.ts';
import { newIdentity, passwordIdentifier, setPasswordCredential } from './identities.ts';
import { configuredProviders, providerLabel } from './oidc/config.ts';
import { checkPassword, hashPassword } from './password.ts';
import { coerceTraits, normalizeTraits, validateTraits, type TraitErrors } from './schema.ts';
import type { Service } from './service.ts';
import { currentSession } from './sessions.ts';
import { isOidcSubmit, startOidc } from './oidc/start.ts';
import { completeRegistration } from './registration-complete.ts';

type Layout = 'profile' | 'credential' | 'unified';

/** The provider buttons, in the order Kratos's sort leaves them: by provider id. */
function oidcNodes(svc: Service): UiNode[] {
  return [...configuredProviders(svc)]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((p) => input('provider', 'submit', 'oidc', { value: p.id, label: msg(1040002, { provider: providerLabel(p), provider_id: p.id }) }));
}

/** How the credential step lists its hidden traits: which keys (those posted with the profile step), and whether an error re-sorted them. */
export type CredentialOptions = { hiddenKeys?: string[]; sorted?: boolean };

/**
 * Builds the nodes of a layout in Kratos v1.3.1's order:
 * - profile (step one): the traits (group default, labelled), csrf_token, method=profile;
 * - credential (step two, the stored stepTwoNodes): password, method=password, screen=previous, then a
 *   hidden node without label for each trait posted with step one (UpdateNodeValuesFromJSON appends
 *   them), then csrf_token; after a form error the handler sorts them (SortNodes): hidden traits in
 *   schema order, csrf_token, password, method, screen;
 * - unified (enable_legacy_one_step): csrf_token, then the password group: the traits with the password
 *   after the first one, and method=password.
 */
export function registrationNodes(
  svc: Service,
  layout: Layout,
  traits: Record<string, unknown>,
  errs?: TraitErrors,
  pwMsg?: UiText,
  options: CredentialOptions = {},
): UiNode[] {
  const withMessages = (n: UiNode) => {
    n.messages = [...(errs?.fields[String(n.attributes.name)] ?? [])];
    return n;
  };
  const pw = input('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: msg(1070001) });
  if (pwMsg) pw.messages.push(pwMsg);
  const submit = input('method', 'submit', 'password', { value: 'password', label: msg(1040001) });
  if (layout === 'credential') {
    const order = svc.schema.props.map(([name]) => name);
    let keys = (options.hiddenKeys ?? Object.keys(traits)).filter((k) => traits[k] !== undefined);
    if (options.sorted) keys = [...keys].sort((a, b) => order.indexOf(a) - order.indexOf(b));
    const hidden = keys.map((k) => withMessages(input(`traits.${k}`, 'hidden', 'default', { value: traits[k] })));
    const back = input('screen', 'submit', 'profile', { value: 'previous', label: msg(1040008) });
    if (options.sorted) return [...oidcNodes(svc), ...hidden, csrfNode(), pw, submit, back];
    return [...oidcNodes(svc), pw, submit, back, ...hidden, csrfNode()];
  }
  const traitsN = traitNodes(svc.schema, layout === 'unified' ? 'password' : 'default', traits).map(withMessages);
  if (layout === 'profile') return [...oidcNodes(svc), ...traitsN, csrfNode(), input('method', 'submit', 'profile', { value: 'profile', label: msg(1040001) })];
  const [first, ...rest] = traitsN;
  return [...oidcNodes(svc), csrfNode(), ...(first ? [first] : []), pw, ...rest, submit];
}

const firstLayout = (svc: Service): Layout => (svc.config.selfservice.flows.registration.style === 'unified' ? 'unified' : 'profile');

export const serializeRegistration = (svc: Service, ctx: Ctx, f: Flow) => serializeFlow(svc, ctx, f);

export function createRegistrationFlow(svc: Service, ctx: Ctx): Flow {
  const f = newFlow(svc, ctx, 'registration', registrationNodes(svc, firstLayout(svc), {}));
  f.internal.layout = firstLayout(svc);
  return f;
}

/** GET /self-service/registration/browser */
export async function createBrowserRegistration(svc: Service, ctx: Ctx): Promise<Reply> {
  checkReturnTo(svc, ctx);
  if (!svc.config.selfservice.flows.registration.enabled) throw errors.disabled('registration');
  // v1.3.1 makes (and stores) the flow first, then fetches the OAuth2 login request, then looks at the session.
  let oauth2: { challenge: string; request: Record<string, unknown> } | undefined;
  let f: Flow;
  try {
    const challenge = loginChallengeOf(svc, ctx);
    f = createRegistrationFlow(svc, ctx);
    if (challenge !== undefined) f.oauth2_login_challenge = challenge;
    saveFlow(svc, f);
    if (challenge !== undefined) oauth2 = { challenge, request: await getLoginRequest(svc, challenge) };
  } catch (e) {
    if (e instanceof KratosError) return forwardError(svc, ctx, e);
    throw e;
  }
  if (oauth2 && typeof oauth2.request.request_url === 'string' && oauth2.request.request_url && svc.config.oauth2_provider?.override_return_to) {
    setRequestQuery(ctx, 'return_to', oauth2.request.request_url);
  }
  const cur = currentSession(svc, ctx);
  if (cur) {
    if (oauth2?.request.skip === true) return acceptWithSession(svc, ctx, oauth2, cur);
    // The provider wants a sign-in: the login flow with the same query (a 302, JSON or not).
    if (oauth2) return redirect(302, `${svc.publicUrl}/self-service/login/browser?${goEncodeQuery(ctx.query)}`);
    if (!ctx.isJSON) return redirect(303, returnUrl(svc, { request_url: ctx.requestUrl }));
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus registration is not possible.');
  }
  if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'registration', f.id));
  return json(200, serializeRegistration(svc, ctx, f));
}

function formReply(svc: Service, ctx: Ctx, f: Flow, browserStatus = 302): Reply {
  saveFlow(svc, f);
  if (!ctx.isJSON) return redirect(browserStatus, flowUiUrl(svc, 'registration', f.id));
  return json(400, serializeRegistration(svc, ctx, f));
}

/** The values the flow's trait nodes hold now (a field the next submit leaves out keeps its value, as in v1.3.1). */
function storedTraitValues(f: Flow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of f.ui.nodes) {
    const name = String(n.attributes.name ?? '');
    if (name.startsWith('traits.') && n.attributes.value !== undefined) out[name.slice('traits.'.length)] = n.attributes.value;
  }
  return out;
}

function setLayout(svc: Service, f: Flow, layout: Layout, traits: Record<string, unknown>, errs?: TraitErrors, pwMsg?: UiText, messages: UiText[] = []): void {
  // Errors replace the "choose a credential" hint (Kratos resets ui.messages on form errors).
  const failed = Boolean(errs || pwMsg || messages.length);
  // A form error keeps the flow's nodes and only sets the posted values (v1.3.1 SetValueAttribute), so
  // a field left out keeps what it held; on the credential step the error handler also sorts them.
  const values = failed && layout === f.internal.layout ? { ...storedTraitValues(f), ...traits } : traits;
  if (layout === 'credential' && failed) f.internal.sorted = true;
  const hiddenKeys = Array.isArray(f.internal.hidden) ? (f.internal.hidden as string[]) : undefined;
  f.internal.layout = layout;
  f.ui.nodes = registrationNodes(svc, layout, values, errs, pwMsg, { hiddenKeys, sorted: f.internal.sorted === true });
  setUiMessages(f, [...(layout === 'credential' && !failed ? [msg(1040009)] : []), ...(errs?.general ?? []), ...messages]);
}

/** POST /self-service/registration?flow= */
export async function submitRegistration(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = submitFlowId(ctx);
  const f = loadFlow(svc, 'registration', id);
  if (!f) throw errors.notFound();
  if (currentSession(svc, ctx)) {
    if (!ctx.isJSON) return redirect(302, svc.config.selfservice.default_browser_return_url);
    throw errors.sessionAlreadyAvailable('A valid session was detected and thus registration is not possible.');
  }
  if (isExpired(svc, f)) {
    const nf = createRegistrationFlow(svc, ctx);
    nf.request_url = f.request_url;
    setUiMessages(nf, [expiredMessage(4040001, new Date(f.expires_at), svc.clock.now())]);
    saveFlow(svc, nf);
    if (!ctx.isJSON) return redirect(303, flowUiUrl(svc, 'registration', nf.id));
    throw expiredOnSubmit(svc, f, nf.id);
  }
  const body = await ctx.body();
  // The oidc strategy answers a submit with a provider (and method oidc or none); v1.3.1 checks no
  // anti-CSRF token there.
  if (isOidcSubmit(body)) return startOidc(svc, ctx, f, body);
  const method = str(body.method);
  const screen = str(body.screen);
  const hasTraits = typeof body.traits === 'object' && body.traits !== null;
  // Kratos reads a submit without traits as {} (nothing carried over from an earlier step).
  const traits = coerceTraits(svc.schema, hasTraits ? body.traits : {});
  const profileFirst = svc.config.selfservice.flows.registration.style !== 'unified';
  // v1.3.1's profile strategy answers whatever the password (method=password) and oidc (provider)
  // strategies do not: method=profile or screen=credential-selection → the credential step;
  // method=profile:back or screen=previous → back to the profile step. So the Back button, which posts
  // screen=previous and no method, is a profile submit; method=profile wins over screen=previous.
  const profileSubmit = profileFirst && method !== 'password' && body.provider === undefined;
  if (profileSubmit && method !== 'profile' && screen !== 'credential-selection' && (method === 'profile:back' || screen === 'previous')) {
    // Back: the step-one nodes again with the posted values; v1.3.1 checks no CSRF token here and
    // leaves active/state as they were. The decoder still validates the traits against the schema.
    const errs = validateTraits(svc.schema, traits);
    if (errs) {
      setLayout(svc, f, (f.internal.layout as Layout) ?? 'profile', traits, errs);
      return formReply(svc, ctx, f);
    }
    setLayout(svc, f, 'profile', traits);
    // JSON: 400 with the flow, like every step of the two-step registration (§20.1); browser: 303.
    return formReply(svc, ctx, f, 303);
  }
  if (f.type === 'browser') svc.csrf.verifyBody(ctx, body.csrf_token);
  if (body.transient_payload !== undefined) f.transient_payload = body.transient_payload;

  if (profileSubmit && (method === 'profile' || screen === 'credential-selection')) {
    f.active = undefined;
    f.state = 'choose_method';
    const errs = validateTraits(svc.schema, traits);
    if (errs) {
      setLayout(svc, f, 'profile', traits, errs);
      return formReply(svc, ctx, f);
    }
    const norm = normalizeTraits(svc.schema, traits);
    f.internal.traits = norm;
    // v1.3.1 answers with the stored stepTwoNodes plus a hidden node per posted trait, unsorted, and
    // echoes the transient_payload ({} when none was posted).
    f.internal.hidden = Object.keys(traits);
    f.internal.sorted = false;
    f.transient_payload = body.transient_payload ?? {};
    setLayout(svc, f, 'credential', norm);
    // JSON: 400 with the flow even though the step succeeded (§20.1); browser: 303.
    return formReply(svc, ctx, f, 303);
  }

  if (method !== 'password') {
    setLayout(svc, f, (f.internal.layout as Layout) ?? firstLayout(svc), traits, undefined, undefined, [msg(4010003)]);
    return formReply(svc, ctx, f);
  }

  // method=password: accepted on either screen and in unified style.
  const credentialLayout: Layout = profileFirst ? 'credential' : 'unified';
  const errs = validateTraits(svc.schema, traits);
  if (errs) {
    setLayout(svc, f, profileFirst ? 'profile' : 'unified', traits, errs);
    return formReply(svc, ctx, f);
  }
  const norm = normalizeTraits(svc.schema, traits);
  f.internal.traits = norm;
  const password = str(body.password) ?? '';
  const identifier = passwordIdentifier(svc, norm);
  const pwMsg = password ? checkPassword(password, identifier, svc.config.selfservice.methods.password.config) : msg(4000002, { property: 'password' });
  if (pwMsg) {
    setLayout(svc, f, credentialLayout, norm, undefined, pwMsg);
    return formReply(svc, ctx, f);
  }
  if (identifier && svc.store.findIdentityByIdentifier('password', identifier)) {
    setLayout(svc, f, credentialLayout, norm, undefined, undefined, [msg(4000007)]);
    return formReply(svc, ctx, f);
  }
  const identity = newIdentity(svc, norm);
  setPasswordCredential(svc, identity, await hashPassword(password, svc.config.hashers.argon2));
  if (!svc.store.saveIdentity(identity)) {
    setLayout(svc, f, credentialLayout, norm, undefined, undefined, [msg(4000007)]);
    return formReply(svc, ctx, f);
  }
  // v1.3.1 marks the flow active only once the password registration went through.
  f.active = 'password';
  f.state = 'passed_challenge';
  setLayout(svc, f, credentialLayout, norm);
  saveFlow(svc, f);

  return completeRegistration(svc, ctx, f, identity, 'password');
}
