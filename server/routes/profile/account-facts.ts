// What the profile needs to know about the signed-in identity's ways in, which neither whoami nor the
// settings flow say (Kratos strips credentials from both): whether it has a password, which login
// services are linked, and when the password was last changed here. Read with the admin API
// (GET /admin/identities/{id}?include_credential=password), server side only.
//
// Whether there is a password is Kratos's own rule (password strategy CountActiveFirstFactorCredentials):
// a `password` credential with identifiers AND a hashed password. The credential alone says nothing:
// Kratos gives every identity whose schema marks the e-mail as a password identifier an empty
// `password` credential, social-only ones included (seen on real Kratos v1.3.1). So the config is asked
// for, looked at for a non-empty hash, and dropped at once: never kept, returned or logged.
//
// Password kinds (spec §3), the rule:
//   changeLoginService  no `password` credential: a social-only account; the section offers to set one.
//   changedPassword     a password the user changed on this page: metadata_public.passwordChangedAt is set.
//   default             a password never changed since it was set (at sign-up, or here by a social account).
// Kratos's own timestamps cannot tell a change apart: every identity update rewrites all credentials
// with a new updated_at (v1.3.1 UpdateIdentity deletes and re-inserts them; a name change moves the
// password's updated_at too, checked on real Kratos). So a successful password change on this page is
// recorded in the identity's public metadata, and only when a password existed before (setting the
// first one is not a change).
import { IdentityApiAxiosParamCreator, type Configuration, type IdentityApi } from '@ory/client';
import type { Request, Response } from 'express';
import { AppError } from '../../../core/errors.ts';
import { kratosAdapter, type AdapterConfig } from '../../flows/transport.ts';
import { LOG_REASONS, type LogReason } from '../../log-reasons.ts';
import { oryClients } from '../../ory.ts';
import { configOf } from '../../request-context.ts';
import { providerOfIdentifier } from '../../../views/components/profile/linked-logins.ts';
import type { PasswordKind } from '../../../views/components/profile/PasswordSection.tsx';

/** The metadata_public member holding the last password change made on this page (ISO 8601). */
export const PASSWORD_CHANGED_AT = 'passwordChangedAt';

export type AccountFacts = {
  hasPassword: boolean;
  /** Providers of the identity's `oidc` credential (its identifiers are `<provider>:<subject>`). */
  linkedProviders: string[];
  passwordChangedAt?: string;
};

type AdminIdentity = {
  credentials?: Record<string, { identifiers?: string[]; config?: Record<string, unknown> } | undefined>;
  metadata_public?: Record<string, unknown> | null;
};

/** The facts from an admin identity document. */
export function accountFactsOf(identity: AdminIdentity): AccountFacts {
  const password = identity.credentials?.password;
  const oidc = identity.credentials?.oidc?.identifiers ?? [];
  const changedAt = identity.metadata_public?.[PASSWORD_CHANGED_AT];
  const hash = password?.config?.hashed_password;
  return {
    hasPassword: (password?.identifiers ?? []).some((identifier) => identifier !== '') && typeof hash === 'string' && hash !== '',
    linkedProviders: [...new Set(oidc.map(providerOfIdentifier).filter((provider): provider is string => provider !== undefined))],
    passwordChangedAt: typeof changedAt === 'string' && !Number.isNaN(Date.parse(changedAt)) ? changedAt : undefined,
  };
}

/**
 * The kind of the password section. Without facts (the admin API could not be read) the sign-up
 * service the app stored in the traits decides: an account made with a login service is offered to
 * set a password, any other one to change it.
 */
export function passwordKindOf(facts: AccountFacts | null, loginService: string | undefined): PasswordKind {
  if (!facts) return loginService && loginService !== 'EMAIL_PASSWORD' ? 'changeLoginService' : 'default';
  if (!facts.hasPassword) return 'changeLoginService';
  return facts.passwordChangedAt ? 'changedPassword' : 'default';
}

function identityAdmin(req: Request) {
  return oryClients(configOf(req)).identityAdmin;
}

type AdminRequests = { build: ReturnType<typeof IdentityApiAxiosParamCreator>; basePath: string };
const adminRequestsOf = new WeakMap<IdentityApi, AdminRequests>();

/**
 * The SDK's request builder on the admin client's own configuration (base path, API key, transport, agents
 * and deadline, all set once in server/ory.ts): every page view reads the facts, and axios's per-call
 * machinery around the transport cost about as much CPU as the rest of the call (CPU profile, issue #17
 * item 5). The SDK keeps the configuration protected; it is read once per client.
 */
function adminRequests(req: Request): AdminRequests {
  const client = identityAdmin(req);
  let found = adminRequestsOf.get(client);
  if (!found) {
    const configuration = (client as unknown as { configuration: Configuration }).configuration;
    found = { build: IdentityApiAxiosParamCreator(configuration), basePath: configuration.basePath ?? '' };
    adminRequestsOf.set(client, found);
  }
  return found;
}

/** GET /admin/identities/{id}?include_credential=password, straight through the transport; a non-2xx answer throws with its status. */
async function adminIdentityWithPassword(req: Request, id: string): Promise<AdminIdentity> {
  const { build, basePath } = adminRequests(req);
  const args = await build.getIdentity(id, ['password']);
  const answer = await kratosAdapter({ ...(args.options as AdapterConfig), url: basePath + args.url, validateStatus: () => true });
  if (answer.status < 200 || answer.status >= 300) throw Object.assign(new Error(`admin identity: ${answer.status}`), { response: { status: answer.status } });
  return JSON.parse(answer.data) as AdminIdentity;
}

function failure(req: Request, error: unknown, reason: LogReason, what: string): null {
  const status = error instanceof AppError ? error.status : (error as { response?: { status?: number } }).response?.status;
  req.log?.warn({ status, code: error instanceof AppError ? error.code : undefined, reason }, what);
  return null;
}

/**
 * The signed-in identity's facts, once per request (the first caller starts the read, later ones share
 * it, so it can run alongside the other calls of the page); null when the admin API cannot tell (logged).
 * `res.locals.accountFacts` holds the answer once it is known.
 */
export function loadAccountFacts(req: Request, res: Response): Promise<AccountFacts | null> {
  const started = res.locals.accountFactsLoad as Promise<AccountFacts | null> | undefined;
  if (started) return started;
  const load = readAccountFacts(req, res).then((facts) => (res.locals.accountFacts = facts));
  res.locals.accountFactsLoad = load;
  return load;
}

async function readAccountFacts(req: Request, res: Response): Promise<AccountFacts | null> {
  const id = (res.locals.kratosSession as { identity?: { id?: string } } | undefined)?.identity?.id;
  if (!id) return null;
  try {
    return accountFactsOf(await adminIdentityWithPassword(req, id));
  } catch (error) {
    return failure(req, error, LOG_REASONS.ory, 'identity credentials could not be read');
  }
}

/** Records a password change on the identity (read, then write the whole public metadata back). */
export async function recordPasswordChange(req: Request, identityId: string, at: Date): Promise<void> {
  try {
    const admin = identityAdmin(req);
    const current = (await admin.getIdentity({ id: identityId })).data as AdminIdentity;
    const metadata = { ...(current.metadata_public ?? {}), [PASSWORD_CHANGED_AT]: at.toISOString() };
    await admin.patchIdentity({ id: identityId, jsonPatch: [{ op: 'add', path: '/metadata_public', value: metadata }] });
  } catch (error) {
    // The password did change; only the section's wording stays "default" until the next change.
    failure(req, error, LOG_REASONS.updateIdentity, 'password change could not be recorded');
  }
}
