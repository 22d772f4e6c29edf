// zod schemas shared by several routes: request fields that more than one body uses and the answers'
// building blocks. The OpenAPI document (openapi.ts) is generated from these and the routes' own schemas.
import { z } from 'zod';

export const LOGIN_SERVICES = ['EMAIL_PASSWORD', 'GOOGLE', 'MICROSOFT', 'DROPBOX', 'APPLE'] as const;

export const email = z.string().trim().toLowerCase().max(255).email();

export const loginService = z
  .string()
  .transform((s) => s.toUpperCase().replace(/[ &-]+/g, '_'))
  .transform((s) => (s === 'EMAIL' || s === 'PASSWORD' || s === 'EMAIL_AND_PASSWORD' ? 'EMAIL_PASSWORD' : s))
  .pipe(z.enum(LOGIN_SERVICES))
  .meta({ description: "EMAIL_PASSWORD | GOOGLE | MICROSOFT | DROPBOX | APPLE (case-insensitive; 'email', 'password' also mean EMAIL_PASSWORD)" });

const isoDate = z.iso.datetime();
const nullableIso = isoDate.nullable();

export const errorSchema = z.object({ code: z.string(), message: z.string(), meta: z.record(z.string(), z.unknown()).optional() }).meta({ id: 'Error' });

export const okSchema = z.object({ ok: z.literal(true) }).meta({ id: 'Ok' });

export const lastAccessAccountSchema = z
  .object({
    email: z.string(),
    loginService: z.string().nullable(),
    name: z.string().nullable(),
    avatarRemoteId: z.string().nullable(),
    at: isoDate,
  })
  // No component id: the generator would make the shared component itself nullable, since it is only used as `.nullable()`.
  .meta({ description: 'The account the sign-in page offers again after a sign-out' });

export const linkedAccountSchema = z.object({ provider: z.string(), email: z.string(), linkedAt: isoDate }).meta({ id: 'LinkedAccount' });

export const userSchema = z
  .object({
    _id: z.string().regex(/^[a-f0-9]{24}$/),
    identityId: z.string().nullable(),
    email: z.string().nullable(),
    name: z.string().nullable(),
    avatarRemoteId: z.string().nullable().meta({ description: 'Stored avatar file name; image at <backend>/avatars/<avatarRemoteId>' }),
    avatarUrl: z.url().nullable(),
    state: z.enum(['active', 'pending_deletion', 'deleted']),
    deletionRequestedAt: nullableIso,
    deletionScheduledAt: nullableIso,
    reactivatedAt: nullableIso,
    lastAccessAccount: lastAccessAccountSchema.nullable(),
    linkedAccounts: z.array(linkedAccountSchema),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'User' });

/** `{ …, user }`: the shape of most answers that change the user record. */
export const withUser = <T extends z.ZodRawShape>(shape: T) => z.object({ ...shape, user: userSchema });
