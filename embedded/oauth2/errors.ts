// Hydra's error answers: `{error, error_description}` where the description is the error's fixed text,
// then a space and the case's hint (fosite's format with the legacy members switched off, contract §0.1).
// The texts are data copied from real Hydra v2.3.0 answers, so clients comparing them see the same words.

const DESCRIPTIONS: Record<string, string> = {
  invalid_request:
    'The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed.',
  request_unauthorized: 'The request could not be authorized.',
  access_denied: 'The resource owner or authorization server denied the request.',
  request_forbidden: 'The request is not allowed.',
  login_required: 'The Authorization Server requires End-User authentication.',
  consent_required: 'The Authorization Server requires End-User consent.',
  invalid_client: 'Client authentication failed (e.g., unknown client, no client authentication included, or unsupported authentication method).',
  invalid_grant:
    'The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  invalid_scope: 'The requested scope is invalid, unknown, or malformed.',
  invalid_state: 'The state is missing or does not have enough characters and is therefore considered too weak.',
  unsupported_grant_type: 'The authorization grant type is not supported by the authorization server.',
  unsupported_response_type: 'The authorization server does not support obtaining a token using this method.',
  unauthorized_client: 'The client is not authorized to request a token using this method.',
  insufficient_entropy: 'The request used a security parameter (e.g., anti-replay, anti-csrf) with insufficient entropy.',
  server_error: 'The authorization server encountered an unexpected condition that prevented it from fulfilling the request.',
  token_inactive: 'Token is inactive because it is malformed, expired or otherwise invalid.',
};

const STATUS: Record<string, number> = {
  request_unauthorized: 401,
  invalid_client: 401,
  token_inactive: 401,
  access_denied: 403,
  request_forbidden: 403,
  server_error: 500,
};

export class HydraError extends Error {
  readonly error: string;
  readonly status: number;
  readonly description: string;
  constructor(error: string, hint?: string, options: { status?: number; description?: string } = {}) {
    const base = options.description ?? DESCRIPTIONS[error] ?? '';
    const description = hint ? (base ? `${base} ${hint}` : hint) : base;
    super(description);
    this.error = error;
    this.description = description.replaceAll('"', "'");
    this.status = options.status ?? STATUS[error] ?? 400;
  }

  body(): { error: string; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

export const oauthError = (error: string, hint?: string) => new HydraError(error, hint);

/** Hydra's 404 for a challenge it cannot decode (the HTTP status text is the error name). */
export const notFound = () => new HydraError('Not Found', undefined, { status: 404, description: 'Unable to locate the requested resource' });

/** The 404 of the SQL layer (unknown client, unknown logout challenge): the description is empty. */
export const resourceNotFound = () => new HydraError('Unable to locate the resource', undefined, { status: 404, description: '' });

export const missingQuery = (name: string) => oauthError('invalid_request', `Query parameter '${name}' is not defined but should have been.`);
