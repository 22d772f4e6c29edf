/**
 * `return_to` allow-listing: the one place that decides whether an address from a query string or a
 * form may become a redirect target.
 *
 * Rule: exact scheme and exact host (port included) of one entry of `config.allowedReturnUrls`
 * (PUBLIC_URL plus ALLOWED_RETURN_URLS), and a path inside that entry's path. Relative paths are
 * resolved against PUBLIC_URL. Anything odd is refused rather than repaired: the answer is either an
 * absolute, normalised URL that is safe to put in a `Location` header, or `undefined`.
 *
 * Why so strict: browsers and URL parsers disagree about backslashes, tabs, control characters,
 * userinfo and percent-encoded separators. Instead of predicting every parser, the raw text must
 * already look exactly like an allowed origin (checked as text AND after parsing), and every
 * percent-decoded layer of it must stay free of the known tricks.
 */
import type { Config } from '../config.ts';

/** Longer values are refused: no real return address needs more, and it bounds the work done. */
export const MAX_RETURN_TO_LENGTH = 2048;

/** How many percent-decoding layers are inspected for hidden tricks (`%252F` is two layers deep). */
const DECODE_LAYERS = 3;

type ReturnToConfig = Pick<Config, 'PUBLIC_URL' | 'allowedReturnUrls'>;

// C0/C1 controls, DEL, every kind of whitespace, bidi and zero-width format characters, and the
// backslash (which WHATWG parsers treat as "/" in special URLs).
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern rejects
const FORBIDDEN_CHARACTERS = /[\u0000-\u0020\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff\\]/u;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const ALLOWED_SCHEMES = new Set(['http', 'https']);

function decodeLayers(raw: string): string[] | undefined {
  const layers = [raw];
  let current = raw;
  for (let i = 0; i < DECODE_LAYERS; i += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      return undefined; // Broken percent-encoding: not something a real link produces.
    }
    if (next === current) break;
    layers.push(next);
    current = next;
  }
  return layers;
}

/**
 * True when one textual layer of the value shows a known open-redirect trick. In decoded layers only
 * the part before the query matters: `?q=a%20b` is a normal query, while `/%09/evil` is a disguised
 * `//evil` that some other decoder down the line could turn into a redirect.
 */
function looksHostile(layer: string, index: number): boolean {
  const inspected = index === 0 ? layer : (layer.split(/[?#]/, 1)[0] ?? '');
  if (FORBIDDEN_CHARACTERS.test(inspected)) return true;
  if (layer.startsWith('//')) return true; // protocol-relative: another host
  const scheme = SCHEME.exec(layer)?.[1];
  if (scheme !== undefined && !ALLOWED_SCHEMES.has(scheme.toLowerCase())) return true; // javascript:, data:, …
  if (scheme !== undefined) {
    const rest = layer.slice(scheme.length + 1);
    if (!rest.startsWith('//')) return true; // "https:evil.com" and friends
    const authority = rest.slice(2).split(/[/?#]/, 1)[0] ?? '';
    if (authority.includes('@') || authority === '') return true; // userinfo tricks, empty host
  }
  return false;
}

/** The allow-list entry's origin exactly as it must appear at the start of an absolute value. */
function originText(entry: URL): string {
  return `${entry.protocol}//${entry.host}`;
}

function pathIsInside(pathname: string, allowedPath: string): boolean {
  if (allowedPath === '/' || allowedPath === '') return true;
  if (pathname === allowedPath) return true;
  const prefix = allowedPath.endsWith('/') ? allowedPath : `${allowedPath}/`;
  return pathname.startsWith(prefix);
}

function matchesEntry(raw: string, url: URL, entry: URL): boolean {
  if (url.protocol !== entry.protocol || url.host !== entry.host) return false;
  if (url.username !== '' || url.password !== '') return false;
  if (!pathIsInside(url.pathname, entry.pathname)) return false;
  if (raw.startsWith('/')) return true; // relative: the origin came from PUBLIC_URL, not the user
  // The typed text must carry the same origin verbatim, followed by the end or a separator, so that
  // IDNA mappings, percent-encoded hosts, trailing dots or default-port spellings cannot sneak in.
  const expected = originText(entry).toLowerCase();
  const typed = raw.slice(0, expected.length).toLowerCase();
  const after = raw.charAt(expected.length);
  return typed === expected && (after === '' || after === '/' || after === '?' || after === '#');
}

/**
 * The allow-listed absolute URL for a user-supplied `return_to`, or undefined when it is missing,
 * malformed or points anywhere we do not own.
 */
export function safeReturnTo(raw: unknown, config: ReturnToConfig): string | undefined {
  if (typeof raw !== 'string') return undefined; // arrays from repeated parameters included
  if (raw.length === 0 || raw.length > MAX_RETURN_TO_LENGTH) return undefined;

  const layers = decodeLayers(raw);
  if (!layers || layers.some((layer, index) => looksHostile(layer, index))) return undefined;

  const relative = raw.startsWith('/');
  if (!relative && !SCHEME.test(raw)) return undefined; // "evil.com", "./x", "?x": too ambiguous

  let url: URL;
  try {
    url = new URL(raw, config.PUBLIC_URL);
  } catch {
    return undefined;
  }
  const entries = relative ? [new URL(config.PUBLIC_URL)] : config.allowedReturnUrls;
  if (!entries.some((entry) => matchesEntry(raw, url, entry))) return undefined;
  return url.href;
}

/**
 * A return address we build ourselves (requireLogin: "come back here after signing in"), bounded so the
 * redirect stays a size browsers and proxies accept: the whole address when it fits
 * MAX_RETURN_TO_LENGTH (what safeReturnTo accepts back), else the same page without its query and
 * fragment, else nothing (the user lands on the default page after signing in).
 */
export function boundedReturnTo(address: string): string | undefined {
  if (address.length <= MAX_RETURN_TO_LENGTH) return address;
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  const bare = `${url.origin}${url.pathname}`;
  return bare.length <= MAX_RETURN_TO_LENGTH ? bare : undefined;
}

/** Query values an app screen may read from the (already allow-listed) return address. */
export type ReturnToContext = { from?: string; action?: string };

// Short identifiers only: these values end up in links and analytics, never as markup or addresses.
const CONTEXT_VALUE = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * Spec §2: `from` and `action` are read from the return_to address, not from the page's own query.
 * Pass the result of safeReturnTo (an unchecked value is treated the same, but callers should not).
 */
export function readFromReturnTo(returnTo: string | undefined): ReturnToContext {
  if (!returnTo) return {};
  let url: URL;
  try {
    url = new URL(returnTo);
  } catch {
    return {};
  }
  const context: ReturnToContext = {};
  const from = url.searchParams.get('from');
  const action = url.searchParams.get('action');
  if (from !== null && CONTEXT_VALUE.test(from)) context.from = from;
  if (action !== null && CONTEXT_VALUE.test(action)) context.action = action;
  return context;
}
