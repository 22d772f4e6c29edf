// auth/*: sign-up and sign-out bookkeeping, password recovery, force log-out, Canny SSO.
import { z } from 'zod';
import { cannyRedirectUrl, cannySsoToken, isAllowedCannyRedirect } from '../canny.ts';
import { notifyForceReload } from '../force-reload.ts';
import type { UserRecord } from '../records.ts';
import { ApiError, badRequest } from '../errors.ts';
import { email, loginService, okSchema, userSchema } from '../schemas.ts';
import { BEARER_ERRORS, errorDoc, IDENTITY_FAILING, INVALID_BODY, parseBody, type Route, type RouteContext } from './route.ts';

const forgotPasswordBody = z.object({ email });
const signUpBody = z.object({
  name: z.string().trim().min(1).max(32).optional(),
  loginService: loginService.optional(),
  email: email.optional().meta({ description: "The app sends it along; the token's verified email is what is stored" }),
});
const signOutBody = z.object({ loginService: loginService.optional() });
const forgetLastAccessBody = z.object({ email: email.optional() });
const cannyQuery = z.object({
  redirect: z.url().max(2048).optional().meta({ description: 'https URL on canny.io, *.canny.io or a configured board host' }),
});

export function authRoutes({ o, accounts, access }: RouteContext): Route[] {
  const { store } = o;
  return [
    {
      method: 'post',
      path: '/api/auth/forgot-password',
      doc: {
        tag: 'auth',
        summary: 'Send a password recovery link',
        description:
          "No token. Looks the email up through the identity admin API (GET /admin/identities?credentials_identifier=); when an active identity exists, creates a recovery link valid 5 minutes (POST /admin/recovery/link, expires_in 5m) and records it in the stand-in's outbox (GET /api/admin/outbox). Always answers 202 for a well-formed email, known or not.",
        body: { schema: forgotPasswordBody, required: true },
        responses: { 202: { description: 'Accepted', schema: okSchema }, 400: INVALID_BODY, 502: IDENTITY_FAILING },
      },
      async handler(req, res) {
        const body = parseBody(forgotPasswordBody, req.body);
        const admin = o.identityAdmin;
        if (admin) {
          const identity = await admin.findByEmail(body.email);
          if (identity && identity.state !== 'inactive') {
            const link = await admin.createRecoveryLink(identity.id);
            store.addOutbox(
              { kind: 'recovery', email: body.email, identityId: identity.id, link: link.recovery_link, expiresAt: link.expires_at ?? null },
              o.clock.now(),
            );
          }
        } else {
          o.logger.warn({}, 'forgot-password: identity admin API not configured, nothing sent');
        }
        res.status(202);
        return { ok: true };
      },
    },
    {
      method: 'post',
      path: '/api/auth/sign-up',
      doc: {
        tag: 'auth',
        security: 'bearer',
        summary: 'Register the signed-in identity with the backend',
        description:
          "Creates the user record for the token's identity (201) or returns the existing one (200). Only `name` is taken from the body, and only when the record has none (the email comes from the token).",
        body: { schema: signUpBody, required: false },
        responses: {
          200: { description: 'Existing record', schema: z.object({ created: z.literal(false), user: userSchema }) },
          201: { description: 'Record created', schema: z.object({ created: z.literal(true), user: userSchema }) },
          400: INVALID_BODY,
          ...BEARER_ERRORS,
        },
      },
      async handler(req, res) {
        const ctx = await access.authenticate(req);
        const body = parseBody(signUpBody, req.body);
        let user = ctx.user;
        const patch: Partial<UserRecord> = {};
        if (body.name && !user.name) patch.name = body.name;
        if (Object.keys(patch).length) user = store.updateUser(user._id, patch, o.clock.now());
        res.status(ctx.created ? 201 : 200);
        return { created: ctx.created, user: accounts.userJson(user) };
      },
    },
    {
      method: 'post',
      path: '/api/auth/sign-out',
      doc: {
        tag: 'auth',
        security: 'bearer',
        summary: 'Record a sign-out',
        description:
          'Remembers the account as the last access account ({email, loginService, name, avatarRemoteId, at}) so the sign-in page can offer it. Does not end the identity session (the app does that with the identity service). Allowed while deletion is pending.',
        body: { schema: signOutBody, required: false },
        responses: { 200: { description: 'Recorded', schema: okSchema }, 400: INVALID_BODY, ...BEARER_ERRORS },
      },
      async handler(req) {
        const { user } = await access.authenticate(req, { allowPending: true });
        const body = parseBody(signOutBody, req.body);
        const now = o.clock.now();
        store.updateUser(
          user._id,
          {
            lastSignOutAt: now,
            lastAccessAccount: user.email
              ? {
                  email: user.email,
                  loginService: body.loginService ?? user.lastAccessAccount?.loginService ?? null,
                  name: user.name,
                  avatarRemoteId: user.avatarRemoteId,
                  at: new Date(now).toISOString(),
                }
              : user.lastAccessAccount,
          },
          now,
        );
        return { ok: true };
      },
    },
    {
      method: 'post',
      path: '/api/auth/force-log-out',
      doc: {
        tag: 'auth',
        security: 'bearer',
        summary: 'Sign the identity out everywhere',
        description:
          "Revokes every session of the token's identity through the identity admin API (DELETE /admin/identities/{id}/sessions). Body ignored. Allowed while deletion is pending.",
        responses: {
          200: { description: 'Revoked', schema: okSchema },
          ...BEARER_ERRORS,
          502: errorDoc('Identity service failing (code: identity_unavailable, identity_error)'),
          503: errorDoc('Identity admin API not configured or key set unreachable (code: identity_admin_unconfigured, identity_unavailable)'),
        },
      },
      async handler(req) {
        const { user } = await access.authenticate(req, { allowPending: true });
        await access.requireIdentityAdmin().revokeSessions(user.identityId!);
        // The user's open pages show the session-changed dialog (the accounts app's force-reload).
        await notifyForceReload(o.forceReload, user.identityId!, o.logger);
        return { ok: true };
      },
    },
    {
      method: 'get',
      path: '/api/auth/get-canny-redirect-url',
      doc: {
        tag: 'auth',
        security: 'bearer',
        summary: 'Canny feedback-board SSO redirect URL',
        description:
          "Builds https://canny.io/api/redirects/sso?companyID=<id>&ssoToken=<jwt>&redirect=<url>. ssoToken is a JWT signed HS256 with the Canny private key, claims {email, id (user _id), name (name or the email's local part), avatarURL (only when there is an avatar), iat}. `redirect` is optional and must be an https URL on canny.io / *.canny.io or a configured board host.",
        query: cannyQuery,
        responses: {
          200: { description: 'Redirect URL', schema: z.object({ redirectUrl: z.url() }) },
          400: errorDoc('Redirect not allowed, or account without email (code: invalid_redirect, email_missing)'),
          ...BEARER_ERRORS,
          503: errorDoc('Canny not configured, or key set unreachable (code: canny_unconfigured, identity_unavailable)'),
        },
      },
      async handler(req) {
        const { user, claims } = await access.authenticate(req);
        if (!o.canny) throw new ApiError(503, 'canny_unconfigured', 'Canny SSO is not configured');
        const given = typeof req.query.redirect === 'string' && req.query.redirect !== '' ? req.query.redirect : undefined;
        const query = cannyQuery.safeParse({ redirect: given });
        const redirect = query.success ? (query.data.redirect ?? null) : undefined;
        if (redirect === undefined || (redirect !== null && !isAllowedCannyRedirect(redirect, o.canny.allowedRedirectHosts))) {
          throw badRequest('invalid_redirect', 'The redirect must be an https address of the feedback board');
        }
        const mail = user.email ?? claims.email;
        if (!mail) throw badRequest('email_missing', 'The account has no email address');
        const ssoToken = await cannySsoToken(
          { email: mail, id: user._id, name: user.name ?? mail.split('@')[0]!, avatarURL: accounts.avatarUrl(user.avatarRemoteId) ?? undefined },
          o.canny.privateKey,
          o.clock.now(),
        );
        return { redirectUrl: cannyRedirectUrl(o.canny.companyId, ssoToken, redirect) };
      },
    },
    {
      method: 'post',
      path: '/api/auth/forget-last-access-account',
      doc: {
        tag: 'auth',
        security: 'optionalBearer',
        summary: 'Forget the last access account',
        description:
          "With a bearer token: clears that user's last access account. Without one: clears it for the accounts with the given email (always 200, nothing revealed). A bearer token that is present but invalid is still a 401.",
        body: { schema: forgetLastAccessBody, required: false },
        responses: {
          200: { description: 'Forgotten', schema: okSchema },
          400: errorDoc('Neither a token nor an email (code: invalid_json, invalid_body)'),
          ...BEARER_ERRORS,
        },
      },
      async handler(req) {
        const now = o.clock.now();
        if (req.get('authorization')) {
          const { user } = await access.authenticate(req, { allowPending: true });
          parseBody(forgetLastAccessBody, req.body);
          store.updateUser(user._id, { lastAccessAccount: null }, now);
          return { ok: true };
        }
        const body = parseBody(forgetLastAccessBody, req.body);
        if (!body.email) throw badRequest('invalid_body', 'Send a bearer token or an email');
        store.tx(() => {
          for (const u of store.usersByEmail(body.email!)) store.updateUser(u._id, { lastAccessAccount: null }, now);
        });
        return { ok: true };
      },
    },
  ];
}
