// Request and answer shapes of the profile endpoints, for the OpenAPI document (the handlers build
// their Kratos bodies from an allow-list in settings-body.ts, so these describe rather than parse).
import { z } from 'zod';
import { LIMITS } from '../../../core/limits.ts';
import { flowStateSchema } from '../../flows/schemas.ts';
import { errorResponse, type ResponseDoc } from '../../openapi/registry.ts';

export const settingsQuery = z.object({
  flow: z.uuid().optional().describe('Kratos settings flow id; a new flow is created when missing, expired or foreign'),
  confirm: z.enum(['delete-account']).optional().describe('Open the account deletion confirmation (the page form of the dialog)'),
});

export const flowIdQuery = z.object({
  flow: z.uuid().optional().describe('The settings flow the page showed; the answer returns to it'),
});

export const settingsBody = z
  .object({
    method: z.enum(['profile', 'password', 'oidc']).describe('Which settings form is sent'),
    csrf_token: z.string().describe('The `csrf_token` node of the settings flow (Kratos checks it)'),
    'traits.name': z
      .string()
      .max(LIMITS.nameMax)
      .optional()
      .describe('method=profile: the new name (empty removes it). No other trait is accepted: the e-mail is read-only here'),
    password: z.string().optional().describe('method=password: the new password (8–72 characters, not leaked, not similar to the e-mail)'),
    link: z
      .string()
      .optional()
      .describe('method=oidc: a provider offered by the flow to link (answered 422 browser_location_change_required: the browser goes to the provider)'),
    unlink: z.string().optional().describe('method=oidc: a linked provider to unlink'),
  })
  .describe('Anything else sent (e.g. traits.email, verified, state, metadata_admin, identity ids) is ignored.');

export const ourCsrfBody = z.object({ _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)') });

export const reactivateBody = ourCsrfBody.extend({
  return_to: z.string().optional().describe('Where to go once restored (allow-listed): the page a sign-in was going to'),
});

export const deleteAccountBody = z.object({
  _csrf: z.string().optional().describe('Our CSRF token (or the x-csrf-token header)'),
  reason: z.string().max(500).optional().describe('Why the account is being deleted (optional)'),
});

const userSummary = z.object({
  email: z.string(),
  name: z.string(),
  avatarUrl: z.string().nullable(),
  state: z.enum(['active', 'pending_deletion', 'deleted']).nullable().describe('null while the user service is unreachable'),
});

const ourCsrfTokenField = z
  .string()
  .describe("Our CSRF token for the page's own actions (avatar, deletion, restore, sign out everywhere): send it as _csrf or x-csrf-token");

export const settingsState = z.object({
  flow: flowStateSchema,
  user: userSummary,
  passwordKind: z
    .enum(['default', 'changedPassword', 'changeLoginService'])
    .describe('changeLoginService: no password yet (a social-only account; setting one adds e-mail sign-in); changedPassword: changed here before'),
  passwordChangedAt: z.string().nullable().describe('When the password was last changed on this page; null if never (or unknown)'),
  hasPassword: z.boolean().nullable().describe('Whether the account signs in with e-mail and password; null while the identity service cannot tell'),
  loginService: z.string().nullable(),
  linkedLogins: z.array(
    z.object({
      provider: z.string(),
      linked: z.boolean(),
      action: z.enum(['link', 'unlink', 'lastWayIn']).describe('lastWayIn: linked, and the only way to sign in, so it cannot be unlinked'),
    }),
  ),
  csrf_token: ourCsrfTokenField,
});

export const pendingDeletionState = z.object({
  state: z.literal('pending_deletion'),
  deletionScheduledAt: z.string().nullable(),
  reactivate: z.string().describe('POST here (with our CSRF token) to restore the account'),
  csrf_token: ourCsrfTokenField,
  return_to: z.string().optional().describe('Where a sign-in was going: post it back with the restore to go on there'),
});

export const redirectResult = z.object({ redirect_to: z.string() }).loose();

const avatarState = z.object({
  avatarRemoteId: z.string().nullable().describe('The stored file name; null once removed'),
  avatarUrl: z.string().nullable().describe('Where the image is served (the user service)'),
});

export const avatarResult = avatarState.extend({ redirect_to: z.string(), user: avatarState });

export const deletionResult = z.object({
  redirect_to: z.string(),
  state: z.literal('pending_deletion'),
  deletionScheduledAt: z.string().nullable(),
  gracePeriodDays: z.number(),
});

export const AVATAR_ERRORS: ResponseDoc = errorResponse(
  'Refused upload: limit_file_size (413, over 5 MB), only_one_file_allowed, valid_type (not PNG/JPEG by its signature), ' +
    'file_type_not_exist (no file), image_dimensions_too_large, invalid_multipart; message translated',
);
