// registerLocalClients (scripts/oauth2-clients.ts), as npm start and start:ory call it: the desktop and
// mobile apps' public clients are created once and found again on the next start (same ids, no second
// copy), with the redirect URIs the gateway sends; on real Hydra when the run is on real Ory, else the stand-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYDRA_UI_PATHS, startHydra } from '../../../scripts/ory/hydra.ts';
import { DESKTOP_CLIENT_NAME, DESKTOP_REDIRECT_URIS, MOBILE_CLIENT_NAME, registerLocalClients } from '../../../scripts/oauth2-clients.ts';
import { startOAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { onRealKratos } from '../../support/stack.ts';

const APP_URL = 'http://127.0.0.1:9'; // never contacted
let provider: { adminUrl: string; publicUrl: string; close(): Promise<void> };
beforeAll(async () => {
  const urls = Object.fromEntries(Object.entries(HYDRA_UI_PATHS).map(([name, path]) => [name, APP_URL + path])) as Record<keyof typeof HYDRA_UI_PATHS, string>;
  provider = onRealKratos ? await startHydra({ appUrl: APP_URL }) : await startOAuth2Provider({ urls });
});
afterAll(() => provider?.close());

type Client = { client_id: string; client_name: string; redirect_uris: string[]; token_endpoint_auth_method: string; grant_types: string[]; scope: string };

describe('registerLocalClients', () => {
  it('creates the public desktop and mobile clients once; a restart finds the same ones', async () => {
    const first = await registerLocalClients(provider.adminUrl, `${APP_URL}/`);
    const second = await registerLocalClients(provider.adminUrl, APP_URL);
    expect(second).toEqual(first);
    const clients = (await (await fetch(`${provider.adminUrl}/admin/clients`)).json()) as Client[];
    const desktop = clients.filter((client) => client.client_name === DESKTOP_CLIENT_NAME);
    const mobile = clients.filter((client) => client.client_name === MOBILE_CLIENT_NAME);
    expect(desktop).toHaveLength(1);
    expect(mobile).toHaveLength(1);
    expect(desktop[0]).toMatchObject({
      client_id: first.desktop.clientId,
      redirect_uris: DESKTOP_REDIRECT_URIS,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'openid offline_access',
    });
    expect(mobile[0]).toMatchObject({
      client_id: first.mobile.clientId,
      redirect_uris: [`${APP_URL}/authentication/gateway/callback`],
      token_endpoint_auth_method: 'none',
    });
  });

  it('the desktop client takes any loopback port on its path (RFC 8252 §7.3), never localhost or another path', async () => {
    const { desktop } = await registerLocalClients(provider.adminUrl, APP_URL);
    const authorize = async (redirectUri: string) => {
      const query = new URLSearchParams({
        client_id: desktop.clientId,
        response_type: 'code',
        scope: 'openid offline_access',
        redirect_uri: redirectUri,
        state: 'state-0123456789',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM',
        code_challenge_method: 'S256',
      });
      const answer = await fetch(`${provider.publicUrl}/oauth2/auth?${query}`, { redirect: 'manual' });
      return new URL(answer.headers.get('location') ?? '', provider.publicUrl).pathname;
    };
    expect(await authorize('http://127.0.0.1:53682/callback')).toBe(HYDRA_UI_PATHS.login);
    expect(await authorize('http://[::1]:53682/callback')).toBe(HYDRA_UI_PATHS.login);
    expect(await authorize('http://localhost:53682/callback')).toBe(HYDRA_UI_PATHS.error);
    expect(await authorize('http://127.0.0.1:53682/elsewhere')).toBe(HYDRA_UI_PATHS.error);
  });
});
