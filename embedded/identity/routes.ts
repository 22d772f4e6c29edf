// Route tables of the two listeners.
import { randomUUID } from 'node:crypto';
import * as courier from './admin/courier.ts';
import * as identities from './admin/identities.ts';
import { patchIdentity } from './admin/identity-patch.ts';
import { mailbox } from './admin/mailbox.ts';
import * as recovery from './admin/recovery.ts';
import * as sessions from './admin/sessions.ts';
import { errors, KratosError } from './errors.ts';
import { json, redirect, type Ctx, type Reply } from './http.ts';
import { getFlowHandler } from './flows.ts';
import { createApiLogin, createBrowserLogin, serializeLogin, submitLogin } from './login.ts';
import { createBrowserLogout, performNativeLogout, updateLogout } from './logout.ts';
import { CALLBACK_ROUTES, oidcCallback } from './oidc/callback.ts';
import { createBrowserRecovery, serializeRecovery, submitRecovery } from './recovery.ts';
import { createBrowserRegistration, serializeRegistration, submitRegistration } from './registration.ts';
import type { Service } from './service.ts';
import { createBrowserSettings, serializeSettings, submitSettings } from './settings.ts';
import { createBrowserVerification, serializeVerification, submitVerification } from './verification.ts';
import { webauthnScript } from './webauthn.ts';
import { disableMyOtherSessions, disableMySession, jwks, listMySessions, whoami } from './whoami.ts';

export type Handler = (svc: Service, ctx: Ctx) => Promise<Reply>;
export interface Route {
  methods: string[];
  pattern: string;
  handler: Handler;
  /** Browser variant: non-form errors go to the error UI. */
  browserErrors?: boolean;
}

const VERSION = 'v26.2.0-embedded';

/** Go's zero time.Time, which v1.3.1's stub error carries as created_at/updated_at. */
const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** GET /self-service/errors?error=|id= (v1.3.1 selfservice/errorx: `error` first, then `id`). */
async function getFlowError(svc: Service, ctx: Ctx): Promise<Reply> {
  const id = ctx.query.get('error') || ctx.query.get('id') || '';
  if (id === 'stub:500') {
    // A fresh container each time: a new UUID and zero timestamps, as it is never stored.
    return json(200, {
      id: randomUUID(),
      error: {
        code: 500,
        status: 'Internal Server Error',
        reason: 'This is a stub error.',
        message: 'An internal server error occurred, please contact the system administrator',
      },
      created_at: GO_ZERO_TIME,
      updated_at: GO_ZERO_TIME,
    });
  }
  const e = svc.store.getError(id);
  if (!e) throw errors.notFound();
  return json(200, e);
}

async function schemas(svc: Service): Promise<Reply> {
  return json(200, [{ id: svc.schema.id, schema: svc.schema.raw }]);
}

async function schema(svc: Service, ctx: Ctx): Promise<Reply> {
  const raw = ctx.params.id ?? '';
  const decoded = (() => {
    try {
      return Buffer.from(raw, 'base64url').toString('utf8');
    } catch {
      return '';
    }
  })();
  if (raw !== svc.schema.id && decoded !== svc.schema.id) throw new KratosError(404, { reason: `Identity schema \`${decoded || raw}\` could not be found.` });
  return json(200, svc.schema.raw);
}

const alive: Handler = async () => json(200, { status: 'ok' });
const version: Handler = async () => json(200, { version: VERSION });

export const publicRoutes: Route[] = [
  { methods: ['GET'], pattern: '/self-service/login/browser', handler: createBrowserLogin, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/login/api', handler: createApiLogin },
  { methods: ['GET'], pattern: '/self-service/login/flows', handler: getFlowHandler('login', serializeLogin) },
  { methods: ['POST', 'GET'], pattern: '/self-service/login', handler: submitLogin, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/registration/browser', handler: createBrowserRegistration, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/registration/flows', handler: getFlowHandler('registration', serializeRegistration) },
  { methods: ['POST', 'GET'], pattern: '/self-service/registration', handler: submitRegistration, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/settings/browser', handler: createBrowserSettings, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/settings/flows', handler: getFlowHandler('settings', serializeSettings) },
  { methods: ['POST', 'GET'], pattern: '/self-service/settings', handler: submitSettings, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/recovery/browser', handler: createBrowserRecovery, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/recovery/flows', handler: getFlowHandler('recovery', serializeRecovery) },
  { methods: ['POST', 'GET'], pattern: '/self-service/recovery', handler: submitRecovery, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/verification/browser', handler: createBrowserVerification, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/verification/flows', handler: getFlowHandler('verification', serializeVerification) },
  { methods: ['POST', 'GET'], pattern: '/self-service/verification', handler: submitVerification, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/logout/browser', handler: createBrowserLogout, browserErrors: true },
  { methods: ['GET'], pattern: '/self-service/logout', handler: updateLogout, browserErrors: true },
  { methods: ['DELETE'], pattern: '/self-service/logout/api', handler: performNativeLogout },
  { methods: ['GET'], pattern: '/self-service/errors', handler: getFlowError },
  { methods: ['GET', 'POST'], pattern: CALLBACK_ROUTES.provider, handler: oidcCallback },
  { methods: ['GET'], pattern: CALLBACK_ROUTES.generic, handler: oidcCallback },
  { methods: ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'], pattern: '/sessions/whoami', handler: whoami },
  { methods: ['GET'], pattern: '/sessions', handler: listMySessions },
  { methods: ['DELETE'], pattern: '/sessions', handler: disableMyOtherSessions },
  { methods: ['DELETE'], pattern: '/sessions/:id', handler: disableMySession },
  { methods: ['GET'], pattern: '/.well-known/jwks.json', handler: jwks },
  { methods: ['GET'], pattern: '/.well-known/ory/webauthn.js', handler: webauthnScript },
  { methods: ['GET'], pattern: '/.well-known/change-password', handler: async (svc) => redirect(303, svc.config.selfservice.flows.settings.ui_url) },
  { methods: ['GET'], pattern: '/schemas', handler: schemas },
  { methods: ['GET'], pattern: '/schemas/:id', handler: schema },
  { methods: ['GET'], pattern: '/health/alive', handler: alive },
  { methods: ['GET'], pattern: '/health/ready', handler: alive },
];

export const adminRoutes: Route[] = [
  { methods: ['GET'], pattern: '/admin/identities', handler: identities.listIdentities },
  { methods: ['POST'], pattern: '/admin/identities', handler: identities.createIdentity },
  { methods: ['GET'], pattern: '/admin/identities/by/external/:externalID', handler: identities.getIdentityByExternalId },
  { methods: ['GET'], pattern: '/admin/identities/:id', handler: identities.getIdentity },
  { methods: ['PUT'], pattern: '/admin/identities/:id', handler: identities.updateIdentity },
  { methods: ['PATCH'], pattern: '/admin/identities/:id', handler: patchIdentity },
  { methods: ['DELETE'], pattern: '/admin/identities/:id', handler: identities.deleteIdentity },
  { methods: ['DELETE'], pattern: '/admin/identities/:id/credentials/:type', handler: identities.deleteCredentials },
  { methods: ['GET'], pattern: '/admin/identities/:id/sessions', handler: sessions.listIdentitySessions },
  { methods: ['DELETE'], pattern: '/admin/identities/:id/sessions', handler: sessions.deleteIdentitySessions },
  { methods: ['GET'], pattern: '/admin/sessions', handler: sessions.listSessions },
  { methods: ['GET'], pattern: '/admin/sessions/:id', handler: sessions.getSession },
  { methods: ['DELETE'], pattern: '/admin/sessions/:id', handler: sessions.disableSession },
  { methods: ['PATCH'], pattern: '/admin/sessions/:id/extend', handler: sessions.extendSession },
  { methods: ['POST'], pattern: '/admin/recovery/link', handler: recovery.createRecoveryLink },
  { methods: ['POST'], pattern: '/admin/recovery/code', handler: recovery.createRecoveryCode },
  { methods: ['GET'], pattern: '/admin/courier/messages', handler: courier.listCourierMessages },
  { methods: ['GET'], pattern: '/admin/courier/messages/:id', handler: courier.getCourierMessage },
  { methods: ['GET'], pattern: '/health/alive', handler: alive },
  { methods: ['GET'], pattern: '/health/ready', handler: alive },
  { methods: ['GET'], pattern: '/version', handler: version },
];

// POST /mailbox (a stand-in extension like the page): the backend stand-in's invitation mails join the courier.
export const mailboxRoute: Route = { methods: ['GET', 'POST'], pattern: '/mailbox', handler: mailbox };

export interface Match {
  route?: Route;
  params: Record<string, string>;
  methodMismatch: boolean;
}

export function match(routes: Route[], method: string, path: string): Match {
  const segs = path.split('/');
  let methodMismatch = false;
  for (const r of routes) {
    const ps = r.pattern.split('/');
    if (ps.length !== segs.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      if (p.startsWith(':')) {
        try {
          params[p.slice(1)] = decodeURIComponent(segs[i]!);
        } catch {
          ok = false;
          break;
        }
        if (!params[p.slice(1)]) {
          ok = false;
          break;
        }
      } else if (p !== segs[i]) {
        ok = false;
        break;
      }
    }
    if (!ok) continue;
    if (!r.methods.includes(method)) {
      methodMismatch = true;
      continue;
    }
    return { route: r, params, methodMismatch: false };
  }
  return { params: {}, methodMismatch };
}
