// One authorization request from /oauth2/auth to the code: its login part (challenge, verifier, the
// accepted subject) and its consent part. Challenges and verifiers are random strings resolved through
// aliases; the flow document is what the admin API shows and what the consent sessions list.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from './clients.ts';
import { TTL, type Context } from './context.ts';

export type Rejection = { error: string; error_description: string; status_code: number };

export type LoginResult = {
  subject: string;
  remember: boolean;
  rememberFor: number;
  extendSessionLifespan: boolean;
  acr: string;
  amr: string[];
  context: Record<string, unknown>;
  identityProviderSessionId: string;
  forceSubjectIdentifier: string;
};

export type ConsentResult = {
  grantScope: string[];
  grantAudience: string[];
  remember: boolean;
  rememberFor: number;
  session: { access_token: Record<string, unknown>; id_token: Record<string, unknown> };
  context: Record<string, unknown>;
  handledAt: string;
};

export type Flow = {
  id: string;
  clientId: string;
  /** The authorize URL as the browser sent it (Hydra's request_url). */
  requestUrl: string;
  params: Record<string, string>;
  redirectUri: string;
  requestedScope: string[];
  requestedAudience: string[];
  oidcContext: Record<string, unknown>;
  /** ms of the provider's clock. */
  requestedAt: number;
  loginChallenge: string;
  loginCsrf: string;
  loginSkip: boolean;
  /** The remembered subject when skipping, else ''. */
  loginSubject: string;
  /** The login session id (`sid`): the remembered one, or a new UUID. */
  sessionId: string;
  /** When the subject authenticated (ms): kept from the remembered session on skip. */
  authenticatedAt?: number;
  /** The login verdict whose verifier the browser followed last. */
  login?: LoginResult;
  consentChallenge?: string;
  consentCsrf?: string;
  consentSkip?: boolean;
  consentRequestedAt?: number;
  consent?: ConsentResult;
  consentUsed?: boolean;
  /** A consent verdict (granted or rejected) has been followed: no other verdict of this request is. */
  consentHandled?: boolean;
  /** The id Hydra gives a handled consent (consent sessions' `consent_request.challenge`). */
  consentRequestId?: string;
  /** Consent revoked through the admin API (no longer listed, no longer covers a request). */
  revoked?: boolean;
};

/**
 * What one accept or reject decided, under its verifier. Real Hydra v2.3.0 carries the decision in the
 * verifier itself, so a challenge can be decided again and each verifier keeps its own outcome.
 */
export type Verdict = {
  flowId: string;
  login?: LoginResult;
  loginError?: Rejection;
  consent?: ConsentResult;
  consentError?: Rejection;
  used?: boolean;
};

export const newSecretToken = () => randomBytes(32).toString('base64url');

export function newFlow(fields: Omit<Flow, 'id' | 'loginChallenge' | 'loginCsrf'>): Flow {
  return { ...fields, id: randomUUID().replaceAll('-', ''), loginChallenge: newSecretToken(), loginCsrf: newSecretToken() };
}

export function saveFlow(ctx: Context, flow: Flow): void {
  ctx.store.put('flow', flow.id, flow, { subject: flow.login?.subject, clientId: flow.clientId, ref: flow.sessionId });
}

/** Flows stay findable long after their request expired: their consent may be remembered. */
export function aliasFlow(ctx: Context, name: string, flow: Flow): void {
  ctx.store.alias(name, flow.id);
}

export function flowBy(ctx: Context, name: string): Flow | undefined {
  const id = ctx.store.resolve(name);
  return id ? ctx.store.get<Flow>('flow', id) : undefined;
}

export const requestExpired = (ctx: Context, since: number) => ctx.clock.now() > since + TTL.loginConsentRequestMs;

/** The remembered consents that cover a request: accepted with remember, not revoked, not expired. */
export function rememberedConsentCovers(ctx: Context, subject: string, client: Client, scope: string[], audience: string[]): boolean {
  const now = ctx.clock.now();
  return ctx.store.find<Flow>('flow', { subject, clientId: client.client_id }).some((flow) => {
    const consent = flow.consent;
    if (!consent?.remember || flow.revoked || !flow.consentUsed) return false;
    if (consent.rememberFor > 0 && Date.parse(consent.handledAt) + consent.rememberFor * 1000 < now) return false;
    return scope.every((s) => consent.grantScope.includes(s)) && audience.every((a) => consent.grantAudience.includes(a));
  });
}

export const splitList = (value: string | undefined) => (value ?? '').split(' ').filter((part) => part !== '');
