// What a failure's log line says in `reason`, so an operator can find every line of one kind: the reasons
// the spec names (§4: a crash is logged with reason "crash error"; §8's internal reasons). A line that
// also knows what went wrong underneath (a timeout, a refused connection, an error's name) says so in
// `cause`.
export const LOG_REASONS = {
  /** A request's handler threw: the crash screen was shown. */
  crash: 'crash error',
  /** A backend answer we have no better word for (the person sees errorMessage.unknownError). */
  unknown: 'UNKNOWN_ERROR',
  /** Removing the profile picture failed at the backend. */
  removeAvatar: 'REMOVE_AVATAR',
  /** The identity or OAuth2 service failed or could not be reached. */
  ory: 'ORY_EXCEPTION',
  /** Google One Tap's credential was not taken. */
  google: 'GOOGLE_EXCEPTION',
  /** A change the app makes to an identity (its metadata) was not saved. */
  updateIdentity: 'UPDATE_IDENTITY',
  /** Linking a login service to an existing account failed. */
  linkAccount: 'LINK_ACCOUNT',
} as const;

export type LogReason = (typeof LOG_REASONS)[keyof typeof LOG_REASONS];
