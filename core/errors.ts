/**
 * The one error vocabulary. Every 4xx/5xx the app answers, from whichever source (Kratos, the user
 * backend, our own checks), is an `AppError` and goes out as the same JSON body `{ code, message, meta }`
 * (spec §3). `code` is always a string.
 *
 *   new AppError(status, code, message, meta?)  a failure with the text the user reads
 *   appError(status, code, messageKey)          a failure whose text is looked up in the catalogue when
 *                                               answered (`messageKey` names a locale section)
 *   errorBody(error)                            the JSON body of any error-shaped value
 *   ERROR_CODES                                 the codes the app itself decides (not relayed ones)
 */

export type ErrorMeta = Record<string, unknown>;

/** The JSON body of every error answer. */
export type ErrorBody = { code: string; message: string; meta: ErrorMeta };

/** Codes the app decides itself. Relayed codes (Kratos error ids, spec §8 codes, backend codes) pass through. */
export const ERROR_CODES = {
  badRequest: 'bad_request',
  validation: 'validation_error',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  csrfInvalid: 'csrf_invalid',
  notFound: 'not_found',
  /** The flow posted to is unknown to Kratos (another instance's database, a made-up id): a new one is in the answer. */
  flowMissing: 'self_service_flow_missing',
  methodNotAllowed: 'method_not_allowed',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  tooManyRequests: 'too_many_requests',
  /** More requests at once than this instance takes: answered at once with 503 + Retry-After (server/security/admission.ts). */
  overloaded: 'overloaded',
  internal: 'internal_error',
  sessionAlreadyAvailable: 'session_already_available',
  browserLocationChangeRequired: 'browser_location_change_required',
  /** The identity service (Kratos) cannot be reached in time. */
  identityUnavailable: 'identity_unavailable',
  /** A call made without a usable Kratos session: the user must sign in again. */
  signedOut: 'session_inactive',
  /** OAuth2 provider (Hydra) answers about a login, consent or logout challenge (server/oauth2.ts). */
  oauth2RequestUnknown: 'oauth2_request_unknown',
  oauth2RequestHandled: 'oauth2_request_handled',
  oauth2RequestExpired: 'oauth2_request_expired',
  oauth2BadRequest: 'oauth2_bad_request',
  /** The OAuth2 provider cannot be reached in time, or failed. */
  oauth2Unavailable: 'oauth2_unavailable',
  /** Hydra sent the browser to our error page (`/error?error=…`). */
  oauth2Error: 'oauth2_error',
  /** /authentication/gateway asked for an app whose OAuth2 client is not configured (decision 140). */
  gatewayNotConfigured: 'gateway_not_configured',
  /** /authentication/gateway with a missing or malformed parameter (redirect_uri, code_challenge, state, platform). */
  gatewayInvalidRequest: 'gateway_invalid_request',
  /** /open-drive with a `state` that is not Google Drive's (forged or malformed). */
  driveStateInvalid: 'drive_state_invalid',
} as const;

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly meta: ErrorMeta;
  /** Set when the text is to be translated at answer time: the locale section with `title` and `text`. */
  readonly messageKey: string | undefined;

  constructor(status: number, code: string, message: string, meta: ErrorMeta = {}, messageKey?: string) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.meta = meta;
    this.messageKey = messageKey;
  }

  toJSON(): ErrorBody {
    return errorBody(this);
  }
}

/** An error whose message is a catalogue section (`<key>.title`, `<key>.text`), translated when answered. */
export function appError(status: number, code: string, messageKey: string): AppError {
  return new AppError(status, code, code, {}, messageKey);
}

export function errorBody<E extends { code: string; message: string; meta?: ErrorMeta }>(error: E): ErrorBody {
  return { code: error.code, message: error.message, meta: error.meta ?? {} };
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
