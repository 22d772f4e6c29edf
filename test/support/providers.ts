// Driving an embedded upstream provider (embedded/providers) as a browser would: follow the authorize
// URL to its choose-account page, choose an account (adding it when it is not listed) or cancel, and
// stop where the browser would go back to the relying party: a navigation to its callback, or Apple's
// auto-submitted form post.

/** Cookies the provider set, by name (the fakes name their cookies after themselves). Pass one to keep them between sign-ins. */
export type ProviderCookies = Map<string, string>;

export type ProviderChoice = { email: string; name?: string } | { cancel: true };

export type BackToCallback = { method: 'GET'; url: string } | { method: 'POST'; url: string; form: Record<string, string> };

const MAX_STEPS = 12;

const decodeHtml = (value: string) =>
  value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? decodeHtml(match[1]!) : undefined;
}

function keepCookies(response: Response, cookies: ProviderCookies): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
    else cookies.set(name, value);
  }
}

/** The choose-account page's answer for `choice`: which form to post, with what. */
function chooseOnPage(html: string, pageUrl: string, choice: ProviderChoice): { url: string; form: Record<string, string> } {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`signInAtProvider: no form on the provider's page ${pageUrl}`);
  const url = new URL(decodeHtml(action), pageUrl).href;
  if ('cancel' in choice) return { url, form: { action: 'cancel' } };
  const wanted = choice.email.toLowerCase();
  for (const button of html.match(/<button type="submit" name="sub"[^>]*>/g) ?? []) {
    if (attribute(button, 'data-email')?.toLowerCase() === wanted) return { url, form: { action: 'choose', sub: attribute(button, 'value') ?? '' } };
  }
  return { url, form: { action: 'add', email: choice.email, name: choice.name ?? '' } };
}

/** Apple's form_post page (oidc-provider's): the form's action and hidden fields. */
function formPostOf(html: string, pageUrl: string): { url: string; form: Record<string, string> } | undefined {
  if (!/<title>Submitting Callback<\/title>/.test(html)) return undefined;
  const action = /<form method="post" action="([^"]*)"/.exec(html)?.[1];
  if (!action) return undefined;
  const form: Record<string, string> = {};
  for (const input of html.match(/<input type="hidden"[^>]*>/g) ?? []) {
    const name = attribute(input, 'name');
    if (name) form[name] = attribute(input, 'value') ?? '';
  }
  return { url: new URL(decodeHtml(action), pageUrl).href, form };
}

/**
 * Follows `authorizeUrl` at the provider, chooses the account with `choice.email` (added first when the
 * provider does not list it) or cancels, and returns how the browser comes back to the relying party.
 */
export async function signInAtProvider(authorizeUrl: string, choice: ProviderChoice, cookies: ProviderCookies = new Map()): Promise<BackToCallback> {
  const providerOrigin = new URL(authorizeUrl).origin;
  let request: { url: string; form?: Record<string, string> } = { url: authorizeUrl };
  let chosen = false;
  for (let step = 0; step < MAX_STEPS; step++) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(request.url, {
      method: request.form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { ...(cookie ? { cookie } : {}), ...(request.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: request.form ? new URLSearchParams(request.form).toString() : undefined,
    });
    keepCookies(response, cookies);
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, request.url);
      if (next.origin !== providerOrigin) return { method: 'GET', url: next.href };
      request = { url: next.href };
      continue;
    }
    const html = await response.text();
    // Before the status: oidc-provider sends an error's form post (a cancel) with 400, and a browser submits it all the same.
    const formPost = formPostOf(html, request.url);
    if (formPost) return { method: 'POST', ...formPost };
    if (response.status !== 200) throw new Error(`signInAtProvider: ${response.status} from ${request.url}: ${html.slice(0, 300)}`);
    if (chosen) throw new Error(`signInAtProvider: the provider showed its page again after the choice: ${html.slice(0, 300)}`);
    request = chooseOnPage(html, request.url, choice);
    chosen = true;
  }
  throw new Error(`signInAtProvider: more than ${MAX_STEPS} steps at the provider`);
}
