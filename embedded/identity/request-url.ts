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
  const goEscape = (v: string) =>
    encodeURIComponent(v)
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
      .replace(/%20/g, '+');
  const keys = [...new Set(q.keys())].sort();
  const query = keys.flatMap((k) => q.getAll(k).map((v) => `${goEscape(k)}=${goEscape(v)}`)).join('&');
  return `${u.origin}${u.pathname}${query ? `?${query}` : ''}`;
}
