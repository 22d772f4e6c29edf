/**
 * Every path the app serves or links to, defined once. Routers mount these, views link to them, the
 * rate limiter and the account-host rule look them up: a path changes here or nowhere.
 *
 * The core layer imports nothing of ours (docs/architecture.md "Layers"), so this file stays plain data.
 */

export const ROUTES = {
  home: '/',
  signIn: '/sign-in',
  forgetAccount: '/sign-in/forget-account',
  /** After a sign-in that linked a provider (spec §4 SUCCESS). */
  accountLinked: '/sign-in/linked',
  /** Google One Tap posts its credential here; a credential handed over in a link is confirmed here (decision 120). */
  googleOneTap: '/sign-in/google-one-tap',
  signUp: '/sign-up',
  invitation: '/sign-up/invitation',
  verification: '/sign-up/verification',
  /** Where the links in verification e-mails land; the same screen as `verification`. */
  verifyAccount: '/verify-account',
  resendVerification: '/sign-up/resend-verification-email',
  forgotPassword: '/forgot-password',
  resetPassword: '/forgot-password/reset',
  profile: '/profile-settings',
  avatarUpload: '/profile-settings/avatar',
  avatarRemove: '/profile-settings/avatar/remove',
  deleteAccount: '/profile-settings/delete-account',
  accountDeleted: '/profile-settings/account-deleted',
  reactivate: '/profile-settings/reactivate',
  /** Signs the account out on every device (the backend's auth/force-log-out), this one included. */
  signOutEverywhere: '/profile-settings/sign-out-everywhere',
  logout: '/logout',
  /** The OAuth2 provider's consent screen (its `urls.consent`); `?consent_challenge=`. */
  consent: '/consent',
  /** Sign-in handed to the desktop app (`request_login`) or the mobile app (`platform`, `login_type`) through OAuth2 (spec §2). */
  gateway: '/authentication/gateway',
  /** Where the gateway's mobile authorization ends: the code goes to the web view bridge. */
  gatewayCallback: '/authentication/gateway/callback',
  /** "You can return to the app": where a desktop app's loopback listener sends the browser after it took the code. */
  gatewayDone: '/authentication/gateway/done',
  /** Google Drive's "Open with" entry (`state` from Drive). */
  openDrive: '/open-drive',
  flowError: '/error',
  language: '/language',
  /** The cookie banner's choice (`cookie_banner_accept`, decision 170). */
  cookieConsent: '/cookie-consent',
  canny: '/authentication/canny',
  /** The live-session island's authorization token for the socket's `init` (JSON, signed-in only; decision 160). */
  liveSessionToken: '/live-session/token',
  /** The backend's and operators' way to send `force-reload` (bearer FORCE_RELOAD_SECRET; off without it). */
  forceReload: '/internal/force-reload',
  health: '/healthz',
  ready: '/readyz',
  swaggerUi: '/swagger/ui',
  swaggerDocument: '/swagger/openapi.json',
} as const;

export type RoutePath = (typeof ROUTES)[keyof typeof ROUTES];

/** Both addresses of the verification screen (spec §2). */
export const VERIFICATION_PATHS = [ROUTES.verification, ROUTES.verifyAccount] as const;

/** Where the browser lands after signing out: the sign-in page, told to drop what the islands stored. */
export const AFTER_LOGOUT_PATH = `${ROUTES.signIn}?logged_out=1`;
/** `logged_out`'s value when a guard turned away a form post (its change not made): the sign-in page says so. */
export const SIGNED_OUT_UNSAVED = 'unsaved';

/** Pages that also answer on ACCOUNT_HOST (spec §2); any other path there goes to PUBLIC_URL. */
export const ACCOUNT_HOST_PATHS: readonly string[] = [
  ROUTES.signIn,
  ROUTES.forgetAccount,
  ROUTES.googleOneTap,
  ROUTES.signUp,
  ROUTES.invitation,
  ROUTES.resendVerification,
  ROUTES.cookieConsent,
];

/** A same-origin path with a query built from `params` (undefined values left out). */
export function pathWithQuery(path: string, params: Readonly<Record<string, string | undefined>>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
