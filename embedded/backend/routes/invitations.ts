// Invitations: created by the stand-in's admin helper, looked up and consumed by the invitation sign-up page.
import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ApiError, badRequest } from '../errors.ts';
import { invitationMail } from '../mailer.ts';
import { DEFAULT_INVITATION_URL } from '../options.ts';
import { email, userSchema } from '../schemas.ts';
import { ADMIN_KEY_ERRORS, errorDoc, IDENTITY_FAILING, INVALID_BODY, iso, parseBody, type Route, type RouteContext } from './route.ts';

const invitationQuery = z.object({ token: z.string().min(1).max(200) });
const signUpInvitationBody = z.object({
  token: z.string().min(1).max(200),
  password: z.string().min(8).max(72),
  name: z.string().trim().min(1).max(32).optional(),
});
const createInvitationBody = z.object({
  email,
  expiresInSeconds: z
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .optional(),
  invitedBy: z.string().trim().max(255).optional(),
  send: z.boolean().optional().meta({ description: 'Mail the invitation link to the address (and keep it in the outbox)' }),
});

/** Only the token's SHA-256 is stored; the token itself is handed out once. */
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const used = () => new ApiError(410, 'invitation_token_used', 'The invitation has already been used');
const expired = () => new ApiError(410, 'invitation_token_expired', 'The invitation has expired');

export function invitationRoutes({ o, accounts, access }: RouteContext): Route[] {
  const { store } = o;
  return [
    {
      method: 'get',
      path: '/api/auth/invitation',
      doc: {
        tag: 'auth',
        summary: 'Look up an invitation',
        description: 'No token. Lets the invitation sign-up page prefill and lock the email.',
        query: invitationQuery,
        responses: {
          200: { description: 'Usable invitation', schema: z.object({ email: z.string(), expiresAt: z.iso.datetime() }) },
          400: errorDoc('Token missing (code: invalid_invitation_token)'),
          404: errorDoc('Unknown token (code: invalid_invitation_token)'),
          410: errorDoc('Used or expired (code: invitation_token_used, invitation_token_expired)'),
        },
      },
      handler(req) {
        const query = invitationQuery.safeParse(req.query);
        if (!query.success) throw badRequest('invalid_invitation_token', 'The invitation token is missing or invalid');
        const inv = store.invitation(hashToken(query.data.token));
        if (!inv) throw new ApiError(404, 'invalid_invitation_token', 'The invitation token is invalid');
        if (inv.usedAt !== null) throw used();
        if (inv.expiresAt <= o.clock.now()) throw expired();
        return { email: inv.email, expiresAt: iso(inv.expiresAt) };
      },
    },
    {
      method: 'post',
      path: '/api/auth/sign-up-invitation',
      doc: {
        tag: 'auth',
        summary: 'Sign up with an invitation token',
        description:
          "No token. Consumes the invitation: creates the identity through the identity admin API (POST /admin/identities with schema_id, traits {email, name?, loginService: 'EMAIL_PASSWORD'}, password credential, the email as a verified address) and the user record. The email always comes from the invitation, never from the body. A failed sign-up leaves the invitation usable. (The real backend also invalidates an identity cache; the stand-in has none.)",
        body: { schema: signUpInvitationBody, required: true },
        responses: {
          201: {
            description: 'Signed up; the user signs in next with the email and password',
            schema: z.object({ identityId: z.string(), email: z.string(), user: userSchema }),
          },
          400: errorDoc(
            'Invalid body, unknown token, or identity service refused the traits/password (code: invalid_json, invalid_body, invalid_invitation_token, identity_rejected)',
          ),
          409: errorDoc('An identity with this email exists (code: email_exists)'),
          410: errorDoc('Invitation used or expired (code: invitation_token_used, invitation_token_expired)'),
          502: IDENTITY_FAILING,
          503: errorDoc('Identity admin API not configured (code: identity_admin_unconfigured)'),
        },
      },
      async handler(req, res) {
        const body = parseBody(signUpInvitationBody, req.body);
        const admin = access.requireIdentityAdmin();
        const hash = hashToken(body.token);
        const inv = store.invitation(hash);
        if (!inv) throw new ApiError(400, 'invalid_invitation_token', 'The invitation token is invalid');
        if (!store.reserveInvitation(hash, o.clock.now())) throw store.invitation(hash)!.usedAt !== null ? used() : expired();
        let identityId: string;
        try {
          const traits: Record<string, unknown> = { email: inv.email, loginService: 'EMAIL_PASSWORD' };
          if (body.name) traits.name = body.name;
          const created = await admin.createIdentity({
            schema_id: o.identitySchemaId,
            traits,
            state: 'active',
            credentials: { password: { config: { password: body.password } } },
            verifiable_addresses: [{ value: inv.email, verified: true, via: 'email', status: 'completed' }],
          });
          if (created.status === 409) throw new ApiError(409, 'email_exists', 'An account with this email already exists');
          if (created.status !== 201 && created.status !== 200) {
            const reason = (created.body as { error?: { reason?: string; message?: string } } | null)?.error;
            throw new ApiError(400, 'identity_rejected', reason?.reason ?? reason?.message ?? 'The identity service refused the sign-up');
          }
          identityId = String((created.body as { id: unknown }).id);
        } catch (err) {
          store.releaseInvitation(hash);
          throw err;
        }
        store.completeInvitation(hash, identityId);
        const user = store.createUser({ identityId, email: inv.email, name: body.name ?? null }, o.clock.now());
        res.status(201);
        return { identityId, email: inv.email, user: accounts.userJson(user) };
      },
    },
    {
      method: 'post',
      path: '/api/admin/invitations',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'Create an invitation (stand-in helper)',
        description:
          "Guarded by the admin key (Authorization: Bearer <adminApiKey>; default the identity admin API key). The token is returned once; only its SHA-256 is stored. Default lifetime 7 days. `link` is the app's invitation page with the token. With `send`, the link is mailed through the configured mail URL (`mailed` says whether that worked; a mail failure leaves the invitation valid) and kept in the outbox.",
        body: { schema: createInvitationBody, required: true },
        responses: {
          201: {
            description: 'Created',
            schema: z.object({ token: z.string(), email: z.string(), expiresAt: z.iso.datetime(), link: z.url(), mailed: z.boolean() }),
          },
          400: INVALID_BODY,
          ...ADMIN_KEY_ERRORS,
        },
      },
      async handler(req, res) {
        access.requireAdminKey(req);
        const body = parseBody(createInvitationBody, req.body);
        const token = randomBytes(24).toString('base64url');
        const now = o.clock.now();
        const expiresAt = now + (body.expiresInSeconds ? body.expiresInSeconds * 1000 : o.invitationTtlMs);
        store.createInvitation({ tokenHash: hashToken(token), email: body.email, invitedBy: body.invitedBy ?? null, createdAt: now, expiresAt });
        const link = new URL(o.invitationUrl ?? DEFAULT_INVITATION_URL);
        link.searchParams.set('token', token);
        let mailed = false;
        if (body.send) {
          store.addOutbox({ kind: 'invitation', email: body.email, identityId: null, link: link.href, expiresAt: iso(expiresAt) }, now);
          if (o.mailer) {
            try {
              await o.mailer(invitationMail(body.email, link.href, iso(expiresAt)!, body.invitedBy ?? null));
              mailed = true;
            } catch (err) {
              // The invitation stands: the operator can hand the link over another way.
              o.logger.warn({ reason: (err as Error).message }, 'invitation mail could not be sent');
            }
          } else {
            o.logger.warn({}, 'invitation: no mail URL configured, kept in the outbox only');
          }
        }
        res.status(201);
        return { token, email: body.email, expiresAt: iso(expiresAt), link: link.href, mailed };
      },
    },
  ];
}
