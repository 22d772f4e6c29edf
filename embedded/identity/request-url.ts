// How Kratos v1.3.1 writes the request_url of a flow a hook starts (verification after sign-up or a
// settings save), kept apart from the flow logic: it is URL arithmetic with Go's query encoding.

/**
 * The request_url of a verification flow started by a hook (v1.3.1 NewPostHookFlow): the parent flow's
 * own request_url, so its return_to carries over to the verification flow (and where the browser goes
 * once verified); after_verification_return_to, when given, takes return_to's place. Go re-encodes the
 * query (keys sorted, url.Values.Encode), and so does this.
 */
export function postHookRequestUrl(parentRequestUrl: string): string {
  let u: URL;
  try {
    u = new URL(parentRequestUrl);
  } catch {
    return '';
  }
  const q = u.searchParams;
  const after = q.get('after_verification_return_to');
  if (after) q.set('return_to', after);
  q.delete('after_verification_return_to');
  const query = goEncodeQuery(q);
  return `${u.origin}${u.pathname}${query ? `?${query}` : ''}`;
}

/** Go's url.QueryEscape: everything but letters, digits and -_.~ is escaped, a space is "+". */
export const goQueryEscape = (v: string): string =>
  encodeURIComponent(v)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');

/** Go's url.Values.Encode: keys sorted, each key's values in order. */
export function goEncodeQuery(q: URLSearchParams): string {
  const keys = [...new Set(q.keys())].sort();
  return keys.flatMap((k) => q.getAll(k).map((v) => `${goQueryEscape(k)}=${goQueryEscape(v)}`)).join('&');
}

/**
 * x.TakeOverReturnToParameter: the return_to of one flow's request_url set on another's (the query then
 * re-encoded as Go does); unchanged when the first has none.
 */
export function takeOverReturnTo(from: string, to: string): string {
  let rt: string | null = null;
  try {
    rt = new URL(from).searchParams.get('return_to');
  } catch {
    return to;
  }
  if (!rt) return to;
  const u = new URL(to);
  u.searchParams.set('return_to', rt);
  const query = goEncodeQuery(u.searchParams);
  return `${u.origin}${u.pathname}${query ? `?${query}` : ''}`;
}
