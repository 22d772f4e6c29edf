// The OAuth2 clients of the desktop and mobile apps that /authentication/gateway hands sessions to
// (decision 140), registered at the OAuth2 provider's admin API (real Hydra or the stand-in) for
// `npm start`, `npm run start:ory` and the tests. Found by name and replaced, or created: restarts keep
// the same client ids. Both are public clients (no secret; PKCE is their proof).
import { upsertClientByName } from '../embedded/document-app/client-registration.ts';
import { ROUTES } from '../core/routes.ts';

export const DESKTOP_CLIENT_NAME = 'Desktop app (local)';
export const MOBILE_CLIENT_NAME = 'Mobile app (local)';

/**
 * The desktop app's loopback redirect URIs as registered: Hydra v2.3.0 matches `http://127.0.0.1/callback`
 * (and `http://[::1]/callback`) with any port but the same path (RFC 8252 §7.3); `localhost` is never
 * matched (helper-notes real-hydra-facts).
 */
export const DESKTOP_REDIRECT_PATH = '/callback';
export const DESKTOP_REDIRECT_URIS = [`http://127.0.0.1${DESKTOP_REDIRECT_PATH}`, `http://[::1]${DESKTOP_REDIRECT_PATH}`];

const publicClient = {
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  scope: 'openid offline_access',
  token_endpoint_auth_method: 'none',
};

export type LocalClients = { desktop: { clientId: string }; mobile: { clientId: string } };

export async function registerLocalClients(adminUrl: string, appUrl: string): Promise<LocalClients> {
  const admin = adminUrl.replace(/\/+$/, '');
  const app = appUrl.replace(/\/+$/, '');
  const desktop = await upsertClientByName(admin, { client_name: DESKTOP_CLIENT_NAME, redirect_uris: DESKTOP_REDIRECT_URIS, ...publicClient });
  const mobile = await upsertClientByName(admin, { client_name: MOBILE_CLIENT_NAME, redirect_uris: [`${app}${ROUTES.gatewayCallback}`], ...publicClient });
  return { desktop: { clientId: desktop.client_id }, mobile: { clientId: mobile.client_id } };
}
