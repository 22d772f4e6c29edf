// Starting the two OAuth2 providers a scenario runs against, configured alike: the stand-in
// (embedded/oauth2, startOAuth2Provider) and real Ory Hydra v2.3.0 (scripts/ory/hydra.ts, --dev,
// SameSite=Lax cookies). Both send the browser to the same app pages (HYDRA_UI_PATHS under APP_URL),
// where nothing listens: the scenarios play the login, consent and logout UI through the admin API.
//
// OAUTH2_CONFORMANCE_SELF_CHECK=1 runs real Hydra on both sides: every difference then found is
// variation between two correct services, which the normaliser must hide (normalise.ts).
import { startOAuth2Provider } from '../../../embedded/oauth2/index.ts';
import { HYDRA_UI_PATHS, startHydra } from '../../../scripts/ory/hydra.ts';

/** The app's URL in both providers' configuration. Nothing listens there. */
export const APP_URL = 'http://app.conformance.test:3000';

export type OAuth2Target = { name: 'stand-in' | 'hydra'; publicUrl: string; adminUrl: string; appUrl: string };
export type RunningTarget = OAuth2Target & { close(): Promise<void> };
export type OAuth2Pair = { standIn: RunningTarget; hydra: RunningTarget; close(): Promise<void> };

export const selfCheck = (): boolean => process.env.OAUTH2_CONFORMANCE_SELF_CHECK === '1';

const uiUrls = () => ({
  login: APP_URL + HYDRA_UI_PATHS.login,
  consent: APP_URL + HYDRA_UI_PATHS.consent,
  logout: APP_URL + HYDRA_UI_PATHS.logout,
  error: APP_URL + HYDRA_UI_PATHS.error,
  postLogout: APP_URL + HYDRA_UI_PATHS.postLogout,
});

export async function startStandIn(): Promise<RunningTarget> {
  if (selfCheck()) return { ...(await startRealHydra()), name: 'stand-in' };
  const provider = await startOAuth2Provider({ publicPort: 0, adminPort: 0, database: ':memory:', urls: uiUrls() });
  return { name: 'stand-in', publicUrl: provider.publicUrl, adminUrl: provider.adminUrl, appUrl: APP_URL, close: () => provider.close() };
}

export async function startRealHydra(): Promise<RunningTarget> {
  // startHydra gives Hydra its signing keys before it returns (scripts/ory/hydra.ts).
  const hydra = await startHydra({ appUrl: APP_URL });
  return { name: 'hydra', publicUrl: hydra.publicUrl, adminUrl: hydra.adminUrl, appUrl: APP_URL, close: () => hydra.close() };
}

/** Both providers (started together; if one fails the other is closed). */
export async function startOAuth2Pair(): Promise<OAuth2Pair> {
  const [standIn, hydra] = await Promise.allSettled([startStandIn(), startRealHydra()]);
  if (standIn.status === 'rejected' || hydra.status === 'rejected') {
    if (standIn.status === 'fulfilled') await standIn.value.close();
    if (hydra.status === 'fulfilled') await hydra.value.close();
    throw standIn.status === 'rejected' ? standIn.reason : (hydra as PromiseRejectedResult).reason;
  }
  return {
    standIn: standIn.value,
    hydra: hydra.value,
    close: async () => {
      await Promise.all([standIn.value.close(), hydra.value.close()]);
    },
  };
}
