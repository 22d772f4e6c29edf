// The addresses of the product on one machine, one fact shared by `npm start` (stand-ins) and
// `npm run start:ory` (real Kratos and Hydra): the same ports and origins either way, each one
// overridable by the app's own variable.
import { GSI_CLIENT_PATH, LOCAL_PORTS, PROFILES, PROVIDER_IDS, startFakeProviders, type FakeProviders } from '../embedded/providers/index.ts';
import { identityProviderConfig } from '../embedded/providers/identity-config.ts';
import { waitForAdmin } from '../embedded/document-app/client-registration.ts';
import { TEST_SECRET_KEY as CAPTCHA_TEST_SECRET_KEY, TEST_SITE_KEY as CAPTCHA_TEST_SITE_KEY } from '../embedded/captcha/index.ts';
import { registerLocalClients, type LocalClients } from './oauth2-clients.ts';
import { ROUTES } from '../core/routes.ts';

const env = process.env;

/** The embedded upstream providers' origins (Google, Microsoft, Dropbox, Apple): fixed ports on localhost. */
const providerOrigins = PROVIDER_IDS.map((id) => `http://localhost:${LOCAL_PORTS[id]}`);

export const LOCAL_PRODUCT = {
  appUrl: env.PUBLIC_URL ?? `http://localhost:${env.PORT ?? 3000}`,
  identityPublic: env.KRATOS_PUBLIC_URL ?? 'http://localhost:4433',
  identityAdmin: env.KRATOS_ADMIN_URL ?? 'http://localhost:4434',
  backendUrl: env.BACKEND_URL ?? 'http://localhost:4500',
  hydraPublic: env.HYDRA_PUBLIC_URL ?? 'http://localhost:4444',
  hydraAdmin: env.HYDRA_ADMIN_URL ?? 'http://localhost:4445',
  /** The demo document app (embedded/document-app): an OAuth2 client of the provider, and where /open-drive hands files. */
  documentAppUrl: env.DOCUMENT_APP_URL ?? 'http://localhost:4700',
  /** The reCAPTCHA v2 stand-in (embedded/captcha): its widget script and siteverify. */
  captchaUrl: env.CAPTCHA_URL ?? 'http://localhost:4800',
};

/**
 * reCAPTCHA on sign-up against the local stand-in, with Google's published test keys (the stand-in
 * honours what they do: always pass); an operator's own keys and URLs win.
 */
export function captchaAppEnv(): Record<string, string> {
  return {
    RECAPTCHA_SITE_KEY: env.RECAPTCHA_SITE_KEY ?? CAPTCHA_TEST_SITE_KEY,
    RECAPTCHA_SECRET_KEY: env.RECAPTCHA_SECRET_KEY ?? CAPTCHA_TEST_SECRET_KEY,
    RECAPTCHA_SCRIPT_URL: env.RECAPTCHA_SCRIPT_URL ?? `${LOCAL_PRODUCT.captchaUrl}/recaptcha/api.js`,
    RECAPTCHA_VERIFY_URL: env.RECAPTCHA_VERIFY_URL ?? `${LOCAL_PRODUCT.captchaUrl}/recaptcha/api/siteverify`,
  };
}

/** The captcha stand-in's own environment: where it listens. */
export function captchaEnv(): Record<string, string> {
  return { CAPTCHA_PORT: new URL(LOCAL_PRODUCT.captchaUrl).port || '80' };
}

/**
 * Once the OAuth2 provider's admin API answers: the desktop and mobile clients of the gateway,
 * registered (or found) there, and the app's variables for the provider, the gateway and the document
 * app. The gateway's clients are first-party: consent is not asked for them.
 */
export async function oauth2AppEnv(): Promise<{ clients: LocalClients; env: Record<string, string> }> {
  await waitForAdmin(LOCAL_PRODUCT.hydraAdmin, 60_000);
  const clients = await registerLocalClients(LOCAL_PRODUCT.hydraAdmin, LOCAL_PRODUCT.appUrl);
  return {
    clients,
    env: {
      HYDRA_PUBLIC_URL: LOCAL_PRODUCT.hydraPublic,
      HYDRA_ADMIN_URL: LOCAL_PRODUCT.hydraAdmin,
      DOCUMENT_APP_URL: LOCAL_PRODUCT.documentAppUrl,
      GATEWAY_DESKTOP_CLIENT_ID: env.GATEWAY_DESKTOP_CLIENT_ID ?? clients.desktop.clientId,
      GATEWAY_MOBILE_CLIENT_ID: env.GATEWAY_MOBILE_CLIENT_ID ?? clients.mobile.clientId,
      OAUTH2_TRUSTED_CLIENT_IDS: env.OAUTH2_TRUSTED_CLIENT_IDS ?? [clients.desktop.clientId, clients.mobile.clientId].join(','),
    },
  };
}

/** The demo document app's own environment: where it listens and where it finds the OAuth2 provider. */
export function documentAppEnv(): Record<string, string> {
  const url = new URL(LOCAL_PRODUCT.documentAppUrl);
  return {
    DOCUMENT_APP_PORT: url.port || '80',
    DOCUMENT_APP_PUBLIC_HOST: url.hostname,
    OAUTH2_PUBLIC_URL: LOCAL_PRODUCT.hydraPublic,
    OAUTH2_ADMIN_URL: LOCAL_PRODUCT.hydraAdmin,
  };
}

/**
 * The app's V8 flags under npm start and start:ory, as the Docker image sets them (README "Memory soak"):
 * without a cap V8 grows its heap lazily towards the machine's memory; 128 MB holds the ~34 MB live heap.
 * The young generation is held to 4 MB semi-spaces: with V8's default (16 MB) under the 128 MB cap, the
 * old space was collected about 20 times a second under load and a sign-in page cost 6 ms of CPU instead
 * of ~1.3 ms (`npm run bench`, README "On the server").
 */
export const APP_NODE_FLAGS = ['--max-old-space-size=128', '--max-semi-space-size=4'];

/**
 * The allocator setting the app runs with, as the Docker image sets it: glibc gives each thread that
 * allocates (V8's compiler and GC workers, libuv's pool running zlib and crypto) an arena of its own,
 * and freed memory stays in them; two arenas kept RSS after 3 minutes of `npm run bench -- --only=soak`
 * at 156 MB instead of 173 MB (one run each, load average ~4; README "Memory soak").
 */
export const APP_ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2' };

/** The app's environment on the local product. */
export function appEnv(): Record<string, string> {
  return {
    ...APP_ALLOCATOR_ENV,
    PUBLIC_URL: LOCAL_PRODUCT.appUrl,
    KRATOS_PUBLIC_URL: LOCAL_PRODUCT.identityPublic,
    KRATOS_ADMIN_URL: LOCAL_PRODUCT.identityAdmin,
    BACKEND_URL: LOCAL_PRODUCT.backendUrl,
    // The backend stand-in serves the avatars it stores, under the address it is told (backendEnv).
    AVATAR_STORAGE_URL: env.AVATAR_STORAGE_URL ?? LOCAL_PRODUCT.backendUrl,
    // The local product shows its development hooks (the crash screen at /__test/crash, the UI kit).
    ENABLE_TEST_ROUTES: env.ENABLE_TEST_ROUTES ?? (env.NODE_ENV === 'production' ? 'false' : 'true'),
    // The embedded providers' authorize pages and pictures, and One Tap at the fake Google.
    OIDC_PROVIDER_ORIGINS: env.OIDC_PROVIDER_ORIGINS ?? providerOrigins.join(','),
    GOOGLE_CLIENT_ID: env.GOOGLE_CLIENT_ID ?? PROFILES.google.clientId,
    GOOGLE_GSI_SCRIPT_URL: env.GOOGLE_GSI_SCRIPT_URL ?? `http://localhost:${LOCAL_PORTS.google}${GSI_CLIENT_PATH}`,
    // reCAPTCHA on sign-up (and on sign-in after repeated failures), at the captcha stand-in.
    ...captchaAppEnv(),
    FORCE_RELOAD_SECRET: LOCAL_FORCE_RELOAD_SECRET,
  };
}

/**
 * Starts the embedded upstream providers in this process on their fixed ports, trusting the identity
 * service's callback URLs, and returns them with the identity service's configuration of them (for
 * IDENTITY_CONFIG_OVERRIDES, as JSON).
 */
export async function startLocalProviders(identityPublicUrl: string): Promise<{ fakes: FakeProviders; identityOverrides: string }> {
  const fakes = await startFakeProviders({ host: '127.0.0.1', publicHost: 'localhost', ports: LOCAL_PORTS });
  fakes.trustRelyingParty(identityPublicUrl);
  const identityOverrides = JSON.stringify({ selfservice: { methods: { oidc: identityProviderConfig(fakes) } } });
  return { fakes, identityOverrides };
}

/**
 * The key of the backend stand-in's admin routes on the local product (invitations: `npm run invite`),
 * unless BACKEND_ADMIN_API_KEY names another. Local only: the stand-in listens on loopback.
 */
export const LOCAL_BACKEND_ADMIN_KEY = env.BACKEND_ADMIN_API_KEY ?? 'local-backend-admin-key';

/** Local only (loopback): the backend stand-in's key to the app's POST /internal/force-reload (after auth/force-log-out). */
export const LOCAL_FORCE_RELOAD_SECRET = env.FORCE_RELOAD_SECRET ?? 'local-force-reload-secret-0123456789abcdef';

/**
 * The backend stand-in's own environment: it listens where BACKEND_URL says the app finds it, mails
 * invitations to `mailUrl` (the identity stand-in's mailbox, or real Kratos's mail sidecar) with links to
 * the app's invitation page.
 */
export function backendEnv(identity: { publicUrl: string; adminUrl: string; mailUrl?: string }): Record<string, string> {
  return {
    BACKEND_ADMIN_API_KEY: LOCAL_BACKEND_ADMIN_KEY,
    BACKEND_INVITATION_URL: new URL(ROUTES.invitation, LOCAL_PRODUCT.appUrl).href,
    ...(identity.mailUrl ? { BACKEND_MAIL_URL: env.BACKEND_MAIL_URL ?? identity.mailUrl } : {}),
    BACKEND_PORT: new URL(LOCAL_PRODUCT.backendUrl).port || '80',
    // Avatar URLs name the address browsers reach it at (the one the app's CSP allows), not the one it listens on.
    BACKEND_PUBLIC_URL: env.AVATAR_STORAGE_URL ?? LOCAL_PRODUCT.backendUrl,
    IDENTITY_PUBLIC_URL: identity.publicUrl,
    IDENTITY_ADMIN_URL: identity.adminUrl,
    BACKEND_CORS_ORIGINS: env.BACKEND_CORS_ORIGINS ?? new URL(LOCAL_PRODUCT.appUrl).origin,
    // The backend tells the app (through the balancer under start:cluster) to reload its user's pages after auth/force-log-out.
    BACKEND_FORCE_RELOAD_URL: new URL(ROUTES.forceReload, LOCAL_PRODUCT.appUrl).href,
    BACKEND_FORCE_RELOAD_SECRET: LOCAL_FORCE_RELOAD_SECRET,
  };
}
