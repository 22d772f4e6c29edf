// Hydra's authentication sessions: a login remembered in the browser (`ory_hydra_session_dev`, named as
// real Hydra names it in the --dev mode the project runs it in) lets later requests skip the login form.
import type { IncomingMessage } from 'node:http';
import type { Context } from './context.ts';
import { parseCookies } from './http.ts';

export const SESSION_COOKIE = 'ory_hydra_session_dev';

export type LoginSession = {
  /** The `sid` of ID tokens. */
  id: string;
  subject: string;
  remember: boolean;
  /** ms of the provider's clock. */
  authenticatedAt: number;
  expiresAt: number;
  /** Kratos's session id: logout ends it too. */
  identityProviderSessionId: string;
};

export function saveLoginSession(ctx: Context, session: LoginSession): void {
  ctx.store.put('login_session', session.id, session, { subject: session.subject, expiresAt: session.expiresAt });
}

/** The browser's remembered, unexpired login session. */
export function currentLoginSession(req: IncomingMessage, ctx: Context): LoginSession | undefined {
  const id = parseCookies(req).get(SESSION_COOKIE);
  const session = id ? ctx.store.get<LoginSession>('login_session', id) : undefined;
  return session && session.remember && session.expiresAt > ctx.clock.now() ? session : undefined;
}
