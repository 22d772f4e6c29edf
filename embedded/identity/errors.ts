// Herodot-style errors (contract §1.2, §1.3). Handlers throw KratosError; the server writes the
// envelope (JSON) or stores the error and redirects to the error UI (browser variant).

const STATUS: Record<number, [string, string]> = {
  400: ['Bad Request', 'The request was malformed or contained invalid parameters'],
  401: ['Unauthorized', 'The request could not be authorized'],
  403: ['Forbidden', 'The requested action was forbidden'],
  404: ['Not Found', 'The requested resource could not be found'],
  405: ['Method Not Allowed', 'The request method is not allowed'],
  409: ['Conflict', 'The resource could not be created due to a conflict'],
  410: ['Gone', 'The requested resource is no longer available because it has expired or is otherwise invalid.'],
  413: ['Request Entity Too Large', 'The request body is too large'],
  415: ['Unsupported Media Type', 'The request media type is not supported'],
  422: ['Unprocessable Entity', 'The request was well-formed but was unable to be followed due to semantic errors'],
  500: ['Internal Server Error', 'An internal server error occurred, please contact the system administrator'],
};

export interface GenericError {
  id?: string;
  code: number;
  status: string;
  request?: string;
  reason?: string;
  debug?: string;
  details?: Record<string, unknown>;
  message: string;
}

export interface KratosErrorInit {
  id?: string;
  reason?: string;
  details?: Record<string, unknown>;
  message?: string;
  /** Extra top-level members of "enhanced" errors (use_flow_id, redirect_browser_to, ...). */
  extra?: Record<string, unknown>;
  /** Browser variant: where to send the browser instead of the error UI. */
  browserRedirect?: string;
  /** herodot's debug: kept in the stored error the error UI reads, never in a JSON answer. */
  debug?: string;
}

export class KratosError extends Error {
  code: number;
  id?: string;
  reason?: string;
  details?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  browserRedirect?: string;
  debug?: string;
  constructor(code: number, init: KratosErrorInit = {}) {
    super(init.message ?? STATUS[code]?.[1] ?? 'error');
    this.code = code;
    this.id = init.id;
    this.reason = init.reason;
    this.details = init.details;
    this.extra = init.extra;
    this.browserRedirect = init.browserRedirect;
    this.debug = init.debug;
  }

  /** The herodot error; `stored` (the error UI's copy) keeps the debug member. */
  toGeneric(requestId?: string, stored = false): GenericError {
    const e: Partial<GenericError> = {};
    if (this.id) e.id = this.id;
    e.code = this.code;
    e.status = STATUS[this.code]?.[0] ?? 'Error';
    if (requestId) e.request = requestId;
    if (this.reason) e.reason = this.reason;
    if (stored && this.debug) e.debug = this.debug;
    if (this.details && Object.keys(this.details).length > 0) e.details = this.details;
    e.message = this.message;
    return e as GenericError;
  }

  body(requestId?: string): Record<string, unknown> {
    return { error: this.toGeneric(requestId), ...(this.extra ?? {}) };
  }
}

export const errors = {
  badRequest: (reason: string, init: KratosErrorInit = {}) => new KratosError(400, { reason, ...init }),
  flowParamMissing: () => new KratosError(400, { reason: 'The flow query parameter is missing or malformed.' }),
  notFound: () => new KratosError(404, { message: 'Unable to locate the resource' }),
  flowNotFound: (kind: string) => new KratosError(404, { reason: `The ${kind} request could not be found. Please restart the flow.` }),
  conflict: (reason?: string) =>
    new KratosError(409, { reason, message: 'Unable to insert or update resource because a resource with that value exists already' }),
  unauthorized: (reason: string) => new KratosError(401, { reason }),
  // v1.3.1 keeps "credentials missing" in an unexported field of this error, which encoding/json never
  // writes: the body is the envelope alone. (Newer Kratos exports it as a stray top-level
  // `CredentialsMissing` member, which the contract describes; clients ignore it either way.)
  sessionInactive: () =>
    new KratosError(401, {
      id: 'session_inactive',
      reason: 'No active session was found in this request.',
      message: 'request does not have a valid authentication session',
    }),
  sessionAlreadyAvailable: (reason: string) => new KratosError(400, { id: 'session_already_available', reason, message: 'you are already logged in' }),
  returnToForbidden: (url: string) =>
    new KratosError(400, { id: 'self_service_flow_return_to_forbidden', reason: `Requested return_to URL "${url}" is not allowed.` }),
  locationChange: (url: string) =>
    new KratosError(422, {
      id: 'browser_location_change_required',
      reason: `In order to complete this flow please redirect the browser to: ${url}`,
      message: 'browser location change required',
      extra: { redirect_browser_to: url },
      browserRedirect: url,
    }),
  disabled: (flow: string) =>
    new KratosError(400, {
      id: 'self_service_flow_disabled',
      reason: `${flow[0]!.toUpperCase()}${flow.slice(1)} is not allowed because it was disabled.`,
      message: `${flow} flow disabled`,
    }),
};

export function isKratosError(e: unknown): e is KratosError {
  return e instanceof KratosError;
}
