// The OAuth2 conformance suite's normaliser. Unlike the identity suite's (../normalise.ts), which keeps a
// body's shape and only the enumerations, it keeps values: in OAuth2 the values are the contract
// (scope strings, token_type, error and error_description, skip, subject, redirect URIs, the claims of
// an ID token). What varies between two correct providers is replaced, by key or by form:
//
//   challenges, verifiers, codes, tokens, secrets, session and consent ids, key ids and key material
//                 → `{<key>}` where the value first appears in the scenario, `{<key> = #<step> <key>}`
//                 where it appears again (so "the sid claim is the login's session_id" is still
//                 compared, and one difference does not shift every later value); URL query
//                 parameters too, recursively inside URL-valued parameters; Hydra's token prefixes
//                 stay: `ory_at_{access_token}`
//   UUIDs → {id}; ISO times → {time}; epoch-second claims (exp, iat, …) → {epoch}; expires_in → minutes
//   origins of the two services → {public} / {admin} / {app} (../normalise.ts's normaliseUrl)
//   a JWT → { header, claims } with the same rules applied to both
//   cookie names: the decimal hash of the client id in ory_hydra_*_csrf[_dev]_<n> → {n}; values never
//
// Request line, status, Location, content type and cookie attributes come from ../normalise.ts.
import type { Exchange } from '../client.ts';
import { normaliseExchange, normaliseText, normaliseUrl, type Placeholders } from '../normalise.ts';

export type Value = null | boolean | number | string | Value[] | { [key: string]: Value };

export type OAuth2NormalisedExchange = {
  request: string;
  status: number;
  location?: string;
  contentType?: string;
  cookies: Record<string, string>;
  headers?: Record<string, string>;
  body: Value;
};

/** Query parameters whose values are one-time or random (besides ../normalise.ts's token, code, state, code_challenge). */
const SECRET_PARAMS = new Set([
  'login_challenge',
  'consent_challenge',
  'logout_challenge',
  'login_verifier',
  'consent_verifier',
  'logout_verifier',
  'id_token_hint',
]);

/** JSON members whose string values are random or one-time. */
const SECRET_KEYS = new Set([
  'challenge',
  'login_challenge',
  'consent_request_id',
  'session_id',
  'login_session_id',
  'sid',
  'client_secret',
  'access_token',
  'refresh_token',
  'code',
  'kid',
  'n',
  'x5c',
  'jti',
  'at_hash',
  'c_hash',
  'registration_access_token',
  'identity_provider_session_id',
]);

/** JSON members holding seconds since the epoch (when a token was made or ends). */
const EPOCH_KEYS = new Set(['exp', 'iat', 'nbf', 'auth_time', 'rat']);

const UUID_EXACT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const JWT = /^eyJ[\w-]*\.eyJ[\w-]*\.[\w-]*$/;
/** An absolute http(s) URL, or a path with a query (Hydra's logout request_url is relative). */
const URL_LIKE = /^(https?:\/\/|\/[^/])/i;
const HYDRA_TOKEN = /^(ory_[a-z]{2}_)[\w.~-]+$/;

/** Remembers where each random value of one scenario's recording first appeared: the same value names that place. */
export class Masker {
  private readonly seen = new Map<string, string>();
  /** The exchange being normalised. */
  step = 0;

  mask(key: string, value: string): string {
    const first = this.seen.get(value);
    if (first !== undefined) return `{${key} = ${first}}`;
    this.seen.set(value, `#${this.step} ${key}`);
    return `{${key}}`;
  }
}

/** A relative URL (Hydra's logout request_url) normalised like an absolute one. */
const RELATIVE_BASE = 'http://relative.invalid';
function normaliseAnyUrl(raw: string, ph: Placeholders): string {
  if (!raw.startsWith('/')) return normaliseUrl(raw, ph);
  return normaliseUrl(`${RELATIVE_BASE}${raw}`, ph).slice(RELATIVE_BASE.length);
}

/** The URL with the values of random query parameters replaced, recursively; the rest untouched (so a trailing slash stays as written). */
export function maskUrl(raw: string, masker: Masker): string {
  const q = raw.indexOf('?');
  if (q < 0 || !URL_LIKE.test(raw)) return raw;
  const hashAt = raw.indexOf('#', q);
  const query = raw.slice(q + 1, hashAt < 0 ? undefined : hashAt);
  const params = new URLSearchParams(query);
  const masked = new URLSearchParams();
  for (const [key, value] of params) {
    if (SECRET_PARAMS.has(key) && value !== '') masked.append(key, masker.mask(key, value));
    else masked.append(key, URL_LIKE.test(value) ? maskUrl(value, masker) : value);
  }
  return `${raw.slice(0, q)}?${masked.toString()}${hashAt < 0 ? '' : raw.slice(hashAt)}`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function decodeSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return '(undecodable)';
  }
}

/** A JSON value with what varies replaced (see the file comment); `key` is the member it sits in. */
export function valueOf(value: unknown, ph: Placeholders, masker: Masker, key?: string): Value {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((element) => valueOf(element, ph, masker, key));
  if (isRecord(value)) {
    const out: Record<string, Value> = {};
    for (const k of Object.keys(value).sort()) out[k] = valueOf(value[k], ph, masker, k);
    return out;
  }
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (key !== undefined && EPOCH_KEYS.has(key)) return '{epoch}';
    if (key === 'expires_in') return `{about ${Math.round(value / 60)} min}`;
    return value;
  }
  if (typeof value !== 'string') return String(value);
  if (value === '') return '';
  if (JWT.test(value)) {
    const [header = '', claims = ''] = value.split('.');
    return { jwt_header: valueOf(decodeSegment(header), ph, masker), jwt_claims: valueOf(decodeSegment(claims), ph, masker) };
  }
  const prefix = HYDRA_TOKEN.exec(value)?.[1];
  if (key !== undefined && SECRET_KEYS.has(key)) return `${prefix ?? ''}${masker.mask(key, value)}`;
  if (prefix) return `${prefix}${masker.mask('token', value)}`;
  if (UUID_EXACT.test(value)) return '{id}';
  if (ISO_TIME.test(value)) return '{time}';
  if (URL_LIKE.test(value)) return normaliseAnyUrl(maskUrl(value, masker), ph);
  return normaliseText(value, ph);
}

/**
 * Answers whose list order carries no meaning, put in one order after normalisation: real Hydra v2.3.0
 * lists a subject's consent sessions in no stable order (two consents given in the same second came
 * back in either order from run to run, Hydra against itself).
 */
const UNORDERED_LISTS = [/^\/admin\/oauth2\/auth\/sessions\/consent$/];

const isUnorderedList = (url: string) => {
  try {
    const path = new URL(url).pathname;
    return UNORDERED_LISTS.some((pattern) => pattern.test(path));
  } catch {
    return false;
  }
};

/** Hydra's CSRF cookies carry the decimal murmur3 hash of the client id, which differs run to run. */
const normaliseCookieName = (name: string) => name.replace(/^(ory_hydra_(?:login|consent)_csrf(?:_dev)?_)\d+$/, '$1{n}');

export function normaliseOAuth2Exchange(exchange: Exchange, ph: Placeholders, masker = new Masker()): OAuth2NormalisedExchange {
  const masked = { url: maskUrl(exchange.url, masker), location: exchange.location && maskUrl(exchange.location, masker) };
  const generic = normaliseExchange({ ...exchange, ...masked, body: '' }, ph);
  const out: OAuth2NormalisedExchange = { request: generic.request, status: generic.status, cookies: {}, body: '' };
  if (generic.location !== undefined) out.location = generic.location;
  if (generic.contentType !== undefined) out.contentType = generic.contentType;
  for (const [name, attributes] of Object.entries(generic.cookies)) out.cookies[normaliseCookieName(name)] = attributes;
  if (exchange.headers) out.headers = Object.fromEntries(Object.entries(exchange.headers).map(([k, v]) => [k, normaliseText(v, ph)]));
  // A redirect's body is for humans (Go writes a link for GET); clients read Location. An HTML page: its text is not compared.
  const redirect = exchange.status >= 300 && exchange.status < 400;
  if (redirect) out.body = '';
  else if (typeof exchange.body === 'string')
    out.body = exchange.body === '' ? '' : out.contentType === 'text/plain' ? normaliseText(exchange.body.trim(), ph) : 'text';
  else out.body = valueOf(exchange.body, ph, masker);
  if (Array.isArray(out.body) && isUnorderedList(exchange.url)) out.body = out.body.toSorted((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  return out;
}

/** A scenario's exchanges, with one numbering of its random values. */
export function normaliseOAuth2Recording(exchanges: Exchange[], ph: Placeholders): OAuth2NormalisedExchange[] {
  const masker = new Masker();
  return exchanges.map((exchange, step) => {
    masker.step = step;
    return normaliseOAuth2Exchange(exchange, ph, masker);
  });
}
