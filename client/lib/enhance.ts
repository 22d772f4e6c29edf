// Pure decisions of the form-enhancement island (contract in docs/architecture.md).

export type EnhanceOutcome = { kind: 'navigate'; url: string } | { kind: 'swap' } | { kind: 'failed'; reason: 'server' | 'client' };

/**
 * What to do with the answer to an enhanced submit. `hasFragment` says whether the body holds the
 * form again (same id), as the handlers answer a 4xx.
 */
export function decideOutcome(response: { status: number; redirectTo: string | null; redirected: boolean; url: string; hasFragment: boolean }): EnhanceOutcome {
  const ok = response.status >= 200 && response.status < 300;
  if (ok && response.redirectTo) return { kind: 'navigate', url: response.redirectTo };
  // A handler that answered 303 anyway: fetch followed it; go where it leads.
  if (ok && response.redirected) return { kind: 'navigate', url: response.url };
  if (response.status >= 500) return { kind: 'failed', reason: 'server' };
  if (response.hasFragment) return { kind: 'swap' };
  return { kind: 'failed', reason: response.status >= 400 ? 'client' : 'server' };
}

/** Method, URL and body of the fetch that stands in for the browser's own submission. */
export function buildRequest(
  form: { method: string; action: string; enctype: string },
  data: FormData,
): { method: string; url: string; body?: FormData | URLSearchParams } {
  const method = (form.method || 'get').toUpperCase();
  const fields = new URLSearchParams();
  data.forEach((value, name) => typeof value === 'string' && fields.append(name, value));
  if (method === 'GET') {
    const url = new URL(form.action);
    url.search = fields.toString();
    return { method, url: url.href };
  }
  return { method, url: form.action, body: form.enctype === 'multipart/form-data' ? data : fields };
}
