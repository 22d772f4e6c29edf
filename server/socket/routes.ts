// The live-session channel's HTTP side:
//   GET  /live-session/token      the signed-in browser's authorization token (the tokenizer JWT) for the
//                                 socket's `init`, fetched by the island on every (re)connection, so the
//                                 token is never in the page or a URL; 401 once the session is gone.
//   POST /internal/force-reload   `force-reload` to a user's (or one session's) sockets on every instance,
//                                 for the backend's auth/force-log-out and operators who revoke sessions.
//                                 Bearer FORCE_RELOAD_SECRET; a 404 while it is unset.
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { backendClientFor, callerOf } from '../backend-client.ts';
import { whoami } from '../flows/kratos.ts';
import type { AppLocals } from '../locals.ts';
import { translator } from '../request-context.ts';
import { documentEndpoint, errorResponse } from '../openapi/registry.ts';
import { ERROR_CODES, errorBody } from '../../core/errors.ts';
import { ROUTES } from '../../core/routes.ts';

const forceReloadBody = z.object({
  identityId: z.string().min(1).max(200).optional(),
  sessionId: z.string().min(1).max(200).optional(),
  exceptSessionId: z.string().min(1).max(200).optional(),
  reason: z.string().max(100).optional(),
});

documentEndpoint({
  method: 'get',
  path: ROUTES.liveSessionToken,
  summary: "The signed-in browser's authorization token for the live-session socket's init message",
  tags: ['session'],
  responses: {
    200: { description: 'The token', schema: z.object({ token: z.string() }) },
    401: errorResponse('Not signed in'),
  },
});

documentEndpoint({
  method: 'post',
  path: ROUTES.forceReload,
  summary: 'Send force-reload to the sockets of a user (or of one identity session), on every instance',
  tags: ['session'],
  body: forceReloadBody,
  responses: {
    202: { description: 'Sent', schema: z.object({ ok: z.literal(true) }) },
    400: errorResponse('Neither identityId nor sessionId'),
    401: errorResponse('Missing or wrong bearer secret'),
    404: errorResponse('FORCE_RELOAD_SECRET is not configured'),
  },
});

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the bearer secret (digests first, so lengths do not leak either). */
export function bearerMatches(header: string | undefined, secret: string): boolean {
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(secret));
}

/** A 401's body, shaped as every other error answer (code, translated message, meta). */
const unauthorized = (req: Request, code: string) => errorBody({ code, message: translator(req)('errorMessage.unauthorized') });

async function token(req: Request, res: Response): Promise<void> {
  res.set('Cache-Control', 'no-store');
  const session = await whoami(req, res);
  const value = session ? await backendClientFor(req).authorizationToken(callerOf(req, res)) : null;
  if (!value) return void res.status(401).json(unauthorized(req, ERROR_CODES.signedOut));
  res.json({ token: value });
}

function forceReload(req: Request, res: Response): void {
  const { config, liveSessions } = req.app.locals as AppLocals;
  if (!config.FORCE_RELOAD_SECRET) return void res.status(404).json({ code: 'not_found' });
  if (!bearerMatches(req.get('authorization'), config.FORCE_RELOAD_SECRET)) {
    return void res.status(401).set('WWW-Authenticate', 'Bearer').json(unauthorized(req, 'unauthorized'));
  }
  const body = forceReloadBody.safeParse(req.body ?? {});
  if (!body.success || (!body.data.identityId && !body.data.sessionId)) return void res.status(400).json({ code: 'invalid_body' });
  liveSessions.forceReload(body.data, body.data.reason ?? 'internal');
  res.status(202).json({ ok: true });
}

export function liveSessionRoutes(): Router {
  const router = Router();
  router.get(ROUTES.liveSessionToken, (req, res, next) => token(req, res).catch(next));
  router.post(ROUTES.forceReload, forceReload);
  return router;
}
