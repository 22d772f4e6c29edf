/**
 * What the app does once when it first sees a browser signed in — at our password sign-in (and sign-up,
 * when Kratos signs the new account in), and at a signed-in landing: /sign-in or another guest page
 * (social and One Tap sign-ins come back through /sign-in with return_to), and the home page.
 *
 *   landSignedIn(req, res, session)
 *     - the authentication cookie for the document app (auth-cookie.ts): only when missing or near expiry;
 *     - the backend's `auth/sign-up` with the identity's name, e-mail and login service (spec §7), once per
 *       identity: after it succeeded, `metadata_public.backendSignedUpAt` is written on the identity
 *       (identity-metadata.ts), and a session whose identity carries it costs nothing more. The landing
 *       waits for it at most SIGN_UP_WAIT_MS (a healthy backend answers well within it, so the account is
 *       known there before the first page asks); a slower call goes on in the background. It is idempotent
 *       at the backend (an existing user is answered 200, a name kept): a failure is logged and the next
 *       landing tries again (decision 150).
 */
import type { Request, Response } from 'express';
import type { KratosSession } from '../../core/kratos/types.ts';
import { LIMITS } from '../../core/limits.ts';
import { backendClientFor } from '../backend-client.ts';
import { refreshAuthCookie } from './auth-cookie.ts';
import { cookieJar, holdsSessionCookie } from './cookies.ts';
import { LOG_REASONS } from '../log-reasons.ts';
import { BACKEND_SIGNED_UP_AT, publicMetadataOf, setPublicMetadata } from './identity-metadata.ts';

/** How long a landing waits for the backend's sign-up before going on without it. */
export const SIGN_UP_WAIT_MS = 1_500;

/** Identities whose sign-up call is under way in this process: a second landing meanwhile sends none. */
const underWay = new Set<string>();

export async function landSignedIn(req: Request, res: Response, session: KratosSession | null | undefined): Promise<void> {
  // A session the browser holds no cookie of (Kratos answers a registration with one while a login challenge
  // waits, the account to verify first) has signed nobody in here: the tokenizer would only answer 401.
  if (!session?.identity?.id || !holdsSessionCookie(cookieJar(req, res).header())) return;
  const signUp = signUpWithBackend(req, res, session);
  await refreshAuthCookie(req, res);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([signUp, new Promise<void>((resolve) => (timer = setTimeout(resolve, SIGN_UP_WAIT_MS).unref()))]);
  clearTimeout(timer);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/** The backend's sign-up of the session's identity when it has not been done; never rejects. */
export function signUpWithBackend(req: Request, res: Response, session: KratosSession): Promise<void> {
  const identity = session.identity!;
  if (publicMetadataOf(session)?.[BACKEND_SIGNED_UP_AT] || underWay.has(identity.id)) return Promise.resolve();
  underWay.add(identity.id);
  const traits = identity.traits ?? {};
  const name = text(traits.name);
  const body = {
    ...(name && name.length <= LIMITS.nameMax ? { name } : {}),
    ...(text(traits.email) ? { email: text(traits.email) } : {}),
    ...(text(traits.loginService) ? { loginService: text(traits.loginService) } : {}),
  };
  // The cookies as Kratos left them in this request: a sign-in's new session is not in the browser's header yet.
  const caller = { cookie: cookieJar(req, res).header() ?? '', sessionId: session.id };
  const log = req.log;
  return (async () => {
    try {
      await backendClientFor(req).signUp(caller, body);
    } catch (error) {
      log?.warn({ code: (error as { code?: string }).code, cause: (error as Error).name }, 'backend sign-up failed; tried again at the next sign-in');
      return;
    }
    try {
      await setPublicMetadata(req, identity.id, BACKEND_SIGNED_UP_AT, new Date().toISOString());
    } catch (error) {
      // The backend has the user; only the marker is missing, so the next landing sends the (idempotent) call again.
      log?.warn(
        { status: (error as { response?: { status?: number } }).response?.status, reason: LOG_REASONS.updateIdentity },
        'backend sign-up not marked on the identity',
      );
    }
  })().finally(() => underWay.delete(identity.id));
}
