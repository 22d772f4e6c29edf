// Settings `link` and `unlink` (Kratos v1.3.1): the buttons, linking with a privileged session (JSON 422
// and form 303 to the provider, back to the settings flow), a subject another identity has, unlinking,
// the last way in, link and unlink together, and an old session (session_refresh_required).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClock } from '../../../../embedded/clock.ts';
import { APP, Browser } from '../helpers.ts';
import {
  adminIdentityByEmail,
  atProvider,
  csrfOf,
  freshEmail,
  getJson,
  passwordIdentity,
  passwordSignIn,
  postJson,
  social,
  startFlow,
  startOidcStack,
  submitToProvider,
  whoami,
  type OidcStack,
} from './support.ts';

const clock = createTestClock();
let s: OidcStack;
beforeAll(async () => {
  s = await startOidcStack({ clock });
});
afterAll(async () => {
  await s?.close();
});

const oidcNodes = (flow: any) =>
  flow.ui.nodes.filter((n: any) => n.group === 'oidc').map((n: any) => `${n.attributes.name}:${n.attributes.value}:${n.meta.label.id}`);

async function signedInWithPassword() {
  const email = freshEmail('settings');
  const id = await passwordIdentity(s, email);
  const b = new Browser();
  expect((await passwordSignIn(s, b, email)).status).toBe(303);
  return { b, email, id };
}

describe('link', () => {
  it('JSON: 422 to the provider, the callback links it and shows the settings flow saved; unlink removes it', async () => {
    const { b, email } = await signedInWithPassword();
    const { id, flow } = await startFlow(s, b, 'settings');
    expect(oidcNodes(flow)).toEqual(['link:apple:1050002', 'link:dropbox:1050002', 'link:google:1050002', 'link:microsoft:1050002']);
    const url = await submitToProvider(s, b, 'settings', id, { method: 'oidc', link: 'microsoft' }, 'json');
    expect(new URL(url).searchParams.get('redirect_uri')).toBe(s.pub('/self-service/methods/oidc/callback/microsoft'));
    const done = await atProvider(b, url, { email: freshEmail('ms-link') });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${APP}/profile-settings?flow=${id}`);
    const saved = (await getJson(b, s.pub(`/self-service/settings/flows?id=${id}`))).data;
    expect(saved.state).toBe('success');
    expect(saved.active).toBe('oidc');
    expect(saved.ui.messages.map((m: any) => m.id)).toEqual([1050001]);
    // Password + Microsoft: two ways in, so Microsoft can be unlinked.
    expect(oidcNodes(saved)).toEqual(['link:apple:1050002', 'link:dropbox:1050002', 'link:google:1050002', 'unlink:microsoft:1050003']);
    expect((await adminIdentityByEmail(s, email)).credentials.oidc.identifiers).toEqual([expect.stringMatching(/^microsoft:/)]);

    // The saved flow's form posts to the new settings flow made with it.
    const unlinked = await postJson(b, saved.ui.action, { method: 'oidc', unlink: 'microsoft' });
    expect(unlinked.status).toBe(200);
    expect(unlinked.data.state).toBe('success');
    expect(unlinked.data.request_url).toMatch(/\/self-service\/methods\/oidc\/callback\/microsoft\?/);
    const identity = await adminIdentityByEmail(s, email);
    expect(identity.credentials.oidc.identifiers).toEqual([]);
    expect(identity.credentials.oidc.config.providers).toEqual([
      { initial_id_token: '', initial_access_token: '', initial_refresh_token: '', subject: '', provider: '', organization: '' },
    ]);
  });

  it('form: 303 to the provider and back to the settings UI', async () => {
    const { b } = await signedInWithPassword();
    const { id, flow } = await startFlow(s, b, 'settings');
    const url = await submitToProvider(s, b, 'settings', id, { link: 'google', csrf_token: csrfOf(flow) });
    const done = await atProvider(b, url, { email: freshEmail('g-link') });
    expect(done.headers.get('location')).toBe(`${APP}/profile-settings?flow=${id}`);
    expect((await whoami(s, b)).data.authentication_methods.map((m: any) => m.method)).toEqual(['password']);
  });

  it('a subject another identity has: the settings flow with 4000007, nothing linked', async () => {
    const taken = freshEmail('taken-subject');
    await social(s, new Browser(), 'registration', 'dropbox', taken);
    const { b, email } = await signedInWithPassword();
    const { id } = await startFlow(s, b, 'settings');
    const url = await submitToProvider(s, b, 'settings', id, { method: 'oidc', link: 'dropbox' });
    const done = await atProvider(b, url, { email: taken });
    expect(done.headers.get('location')).toBe(`${APP}/profile-settings?flow=${id}`);
    const flow = (await getJson(b, s.pub(`/self-service/settings/flows?id=${id}`))).data;
    expect(flow.ui.messages.map((m: any) => m.id)).toEqual([4000007]);
    expect((await adminIdentityByEmail(s, email)).credentials.oidc).toBeUndefined();
  });
});

describe('refused', () => {
  it('link and unlink together (400), an unknown or already linked provider, unlinking the last way in or a provider not linked', async () => {
    const b = new Browser();
    await social(s, b, 'registration', 'google', freshEmail('only-google'));
    const { id, flow } = await startFlow(s, b, 'settings');
    // A provider-only identity: nothing to unlink (the last way in), Google not offered to link again.
    expect(oidcNodes(flow)).toEqual(['link:apple:1050002', 'link:dropbox:1050002', 'link:microsoft:1050002']);
    const url = s.pub(`/self-service/settings?flow=${id}`);
    const reason = async (body: Record<string, unknown>) => {
      const r = await postJson(b, url, body);
      expect(r.status).toBe(400);
      return r.data.ui.messages.map((m: any) => `${m.id} ${m.text}`);
    };
    expect(await reason({ method: 'oidc', link: 'dropbox', unlink: 'google' })).toEqual([
      '4000001 it is not possible to link and unlink providers in the same request',
    ]);
    expect(await reason({ method: 'oidc', link: 'myspace' })).toEqual(['4000001 can not link unknown or already existing OpenID Connect connection']);
    expect(await reason({ method: 'oidc', link: 'google' })).toEqual(['4000001 can not link unknown or already existing OpenID Connect connection']);
    expect(await reason({ method: 'oidc', unlink: 'google' })).toEqual([
      '4000001 can not unlink OpenID Connect connection because it is the last remaining first factor credential',
    ]);
  });

  it('an old session: link and unlink answer 403 session_refresh_required (JSON) or 303 to the refresh login (form)', async () => {
    const { b } = await signedInWithPassword();
    clock.advance(2 * 3600_000);
    const { id, flow } = await startFlow(s, b, 'settings');
    const r = await postJson(b, s.pub(`/self-service/settings?flow=${id}`), { method: 'oidc', link: 'google' });
    expect(r.status).toBe(403);
    expect(r.data.error.id).toBe('session_refresh_required');
    expect(r.data.redirect_browser_to).toBe(
      s.pub(`/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(s.pub(`/self-service/settings?flow=${id}`))}`),
    );
    const form = await b.post(s.pub(`/self-service/settings?flow=${id}`), { link: 'google', csrf_token: csrfOf(flow) });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe(r.data.redirect_browser_to);
    const unlink = await postJson(b, s.pub(`/self-service/settings?flow=${id}`), { method: 'oidc', unlink: 'google' });
    expect(unlink.status).toBe(403);
  });
});
