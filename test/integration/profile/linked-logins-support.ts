// What the login-services tests share: reading the section's rows from the page, and an account made
// with a provider alone (no password), signed in, through Kratos's own registration flow (the profile
// is under test here, not the sign-up screen).
import { expect } from 'vitest';
import type { Identities } from '../../support/fixtures.ts';
import { Browser } from '../../support/http.ts';
import { signInAtProvider } from '../../support/providers.ts';
import { uniqueEmail } from '../../support/fixtures.ts';
import type { ProfileStack } from './profile-stack.ts';

export type Login = { provider: string; linked: boolean; button?: 'link' | 'unlink'; disabled?: boolean };

/** The rows of the login-services section: provider, linked, and its button (link/unlink, disabled). */
export function loginsOf(html: string): Login[] {
  const rows = html.match(/<li class="profile-logins__item"[\s\S]*?<\/li>/g) ?? [];
  return rows.map((row) => {
    const provider = /data-provider="([^"]+)"/.exec(row)![1]!;
    const linked = /data-linked="true"/.test(row);
    const button = /<button[^>]*>/.exec(row)?.[0];
    if (!button) return { provider, linked };
    const name = /name="(link|unlink)"/.exec(button)?.[1] as 'link' | 'unlink';
    return { provider, linked, button: name, disabled: /\sdisabled=""/.test(button) };
  });
}

type KratosFlow = { id: string; ui: { nodes: { attributes: { name?: string; value?: unknown } }[] } };

/** One browser flow of Kratos's (registration or login) with `provider`, straight to Kratos: browser location change → the provider → the callback. */
async function throughProvider(browser: Browser, kratos: string, kind: 'registration' | 'login', provider: string, email: string) {
  const init = await browser.get(`${kratos}/self-service/${kind}/browser`, { accept: 'application/json' });
  expect(init.status, init.text.slice(0, 300)).toBe(200);
  const flow = JSON.parse(init.text) as KratosFlow;
  const csrf = String(flow.ui.nodes.find((node) => node.attributes.name === 'csrf_token')?.attributes.value ?? '');
  const submit = await browser.postJson(`${kratos}/self-service/${kind}?flow=${flow.id}`, { method: 'oidc', provider, csrf_token: csrf });
  expect(submit.status, submit.text.slice(0, 300)).toBe(422);
  const { redirect_browser_to } = JSON.parse(submit.text) as { redirect_browser_to: string };
  const back = await signInAtProvider(redirect_browser_to, { email, name: 'Ada Social' });
  const done = back.method === 'GET' ? await browser.get(back.url) : await browser.post(back.url, back.form);
  expect(done.status, `${done.location ?? ''} ${done.text.slice(0, 300)}`).toBe(303);
}

/**
 * A new account made with `provider` only (the fake provider's account `email`, added there), signed in
 * in a fresh browser. Registration goes straight to Kratos (JSON, as an integrator would); when the
 * configuration signs nobody in at registration, a sign-in with the same provider follows.
 */
export async function socialSignUp(
  env: ProfileStack,
  identities: Identities,
  provider: 'google' | 'microsoft' | 'dropbox' | 'apple',
  email = uniqueEmail(`social-${provider}`),
) {
  const kratos = env.stack.identity.publicUrl;
  const browser = new Browser(env.appUrl);
  identities.track(email);
  await throughProvider(browser, kratos, 'registration', provider, email);
  const whoami = () => browser.get(`${kratos}/sessions/whoami`, { accept: 'application/json' });
  if ((await whoami()).status !== 200) await throughProvider(browser, kratos, 'login', provider, email);
  expect((await whoami()).status, 'signed in after the provider').toBe(200);
  return { email, browser };
}
