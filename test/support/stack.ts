import { describe, it, type TestFunction } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createApp } from '../../server/app.ts';
import type { AppLocals } from '../../server/locals.ts';
import { attachLiveSessions, type LiveSessions } from '../../server/socket/live-sessions.ts';
import { loadConfig } from '../../server/config.ts';
import { startIdentity, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { startBackend } from '../../embedded/backend/index.ts';
import { merge } from '../../embedded/identity/config.ts';
import { startFakeProviders, type FakeProviders } from '../../embedded/providers/index.ts';
import { identityProviderConfig } from '../../embedded/providers/identity-config.ts';
import type { Clock } from '../../embedded/clock.ts';
import type { JSONWebKeySet } from 'jose';
import { startKratos } from '../../scripts/ory/kratos.ts';
import { HYDRA_UI_PATHS, startHydra } from '../../scripts/ory/hydra.ts';
import { freePort } from '../../scripts/ory/process.ts';
import { startOAuth2Provider } from '../../embedded/oauth2/index.ts';
import { keptAppLog, reportOnFailure, type LogSource } from './stack-log.ts';

/**
 * Which identity service the stacks of this run use: the stand-in, or real Ory Kratos when
 * ORY_TARGET=kratos (the `*-ory` vitest projects set it; the binary comes from `npm run ory:build`).
 */
export const onRealKratos = process.env.ORY_TARGET === 'kratos';

/** The stack backend's admin API key (its admin routes: invitations). */
export const STACK_BACKEND_ADMIN_KEY = 'stack-tests-admin-key';

/** Real Kratos, configured from the same stand-in settings a test gives (see scripts/ory/kratos-config.ts). */
async function startRealIdentity(
  appUrl: string,
  config: StartIdentityOptions['config'],
  clock: Clock | undefined,
  oauth2: { adminPort?: number; providerUrl?: string },
) {
  // Real Kratos reads the real time: a test that moves a clock belongs to the stand-in suites only.
  if (clock) throw new Error('startStack: a test clock works with the identity stand-in only (real Kratos reads the real time)');
  // No courier: the tests read mailed codes from the admin API, and its writes stalled theirs (scripts/ory/kratos.ts).
  const kratos = await startKratos({ appUrl, config, adminPort: oauth2.adminPort, oauth2ProviderUrl: oauth2.providerUrl, courier: false });
  return {
    publicUrl: kratos.publicUrl,
    adminUrl: kratos.adminUrl,
    jwks: kratos.jwks,
    jwksUrl: kratos.jwksUrl,
    issuer: `${kratos.publicUrl}/`,
    errors: kratos.errors,
    close: kratos.close,
  };
}

export type Stack = {
  appUrl: string;
  identity: { publicUrl: string; adminUrl: string };
  /** What a backend must be told to trust the identity service's session JWTs (empty for the stand-in, whose JWKS the backend finds itself). */
  tokenTrust: { jwks?: JSONWebKeySet; issuer?: string };
  backend: { url: string };
  /** The embedded upstream providers (Google, Microsoft, Dropbox, Apple), with `socialProviders: true`. */
  providers?: FakeProviders;
  /** The OAuth2 provider (real Hydra on real Kratos, else the stand-in in embedded/oauth2), with `oauth2: true`. */
  oauth2?: { publicUrl: string; adminUrl: string };
  server: http.Server;
  /** The Express app itself (the server's request listener is the socket endpoint's wrapper around it). */
  app: Express;
  /** The app's live-session channel (server/socket/): tests watch its sockets. */
  liveSessions: LiveSessions;
  /** The app's locals (its config, readiness checks, shutdown hooks). */
  locals: AppLocals;
  /** The app's latest log lines at warn and above (JSON), as kept for a failure's report. */
  appLog(): string[];
  close(): Promise<void>;
};

/**
 * The whole product on ephemeral ports: the embedded identity service and backend, and the real app
 * talking to them over HTTP exactly as in production. The app's port is taken first because the
 * identity service needs the app's URL for its ui_url and allowed_return_urls settings.
 */
export async function startStack(
  options: {
    env?: Record<string, string>;
    identityConfig?: StartIdentityOptions['config'];
    /** One clock for both stand-ins (createTestClock() from embedded/clock.ts): tests advance it instead of sleeping. */
    clock?: Clock;
    /**
     * Start the embedded upstream providers (embedded/providers) before the identity service, configure it
     * with them (the test's identityConfig merged over), trust its callback URLs at them, and give the app
     * OIDC_PROVIDER_ORIGINS, GOOGLE_CLIENT_ID and GOOGLE_GSI_SCRIPT_URL (the test's env wins).
     */
    socialProviders?: boolean;
    /**
     * Start the OAuth2 provider too: real Hydra when the run is on real Kratos, else the stand-in. Each
     * names the other (Kratos's oauth2_provider.url, Hydra's identity_provider URL), and the app gets
     * HYDRA_PUBLIC_URL and HYDRA_ADMIN_URL. Clients are registered by the test through the admin API.
     */
    oauth2?: boolean;
  } = {},
): Promise<Stack> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const providers = options.socialProviders ? await startFakeProviders({ clock: options.clock }) : undefined;
  // The OAuth2 provider starts first: the identity service is told its admin URL, and it is told the
  // identity service's admin URL, on a port chosen now.
  const identityAdminPort = options.oauth2 ? await freePort() : 0;
  const oauth2 = options.oauth2 ? await startOAuth2(appUrl, `http://127.0.0.1:${identityAdminPort}`, options.clock) : undefined;
  let identityConfig: StartIdentityOptions['config'] = providers
    ? merge({ selfservice: { methods: { oidc: identityProviderConfig(providers) } } }, options.identityConfig)
    : options.identityConfig;
  if (oauth2 && !onRealKratos) identityConfig = merge({ oauth2_provider: { url: oauth2.adminUrl } }, identityConfig);
  const identity = onRealKratos
    ? await startRealIdentity(appUrl, identityConfig, options.clock, { adminPort: identityAdminPort || undefined, providerUrl: oauth2?.adminUrl })
    : await startIdentity({
        publicPort: 0,
        adminPort: identityAdminPort,
        database: ':memory:',
        appUrl,
        argon2: { memory: 1024, iterations: 1, parallelism: 1 },
        config: identityConfig,
        clock: options.clock,
      });
  providers?.trustRelyingParty(identity.publicUrl);
  const tokenTrust = 'jwks' in identity ? { jwks: identity.jwks, issuer: identity.issuer } : {};
  const backend = await startBackend({
    port: 0,
    database: ':memory:',
    adminApiKey: STACK_BACKEND_ADMIN_KEY,
    identityPublicUrl: identity.publicUrl,
    identityAdminUrl: identity.adminUrl,
    ...tokenTrust,
    clock: options.clock,
    // With a force-reload secret the backend tells the app after auth/force-log-out (decision 160).
    ...(options.env?.FORCE_RELOAD_SECRET ? { forceReloadUrl: `${appUrl}/internal/force-reload`, forceReloadSecret: options.env.FORCE_RELOAD_SECRET } : {}),
  });
  const config = loadConfig({
    NODE_ENV: 'test',
    PUBLIC_URL: appUrl,
    KRATOS_PUBLIC_URL: identity.publicUrl,
    KRATOS_ADMIN_URL: identity.adminUrl,
    BACKEND_URL: backend.url,
    LOG_LEVEL: 'silent',
    ENABLE_TEST_ROUTES: 'true',
    ...(providers ? providerAppEnv(providers) : {}),
    ...(oauth2 ? { HYDRA_PUBLIC_URL: oauth2.publicUrl, HYDRA_ADMIN_URL: oauth2.adminUrl } : {}),
    // Real Kratos does not publish the tokenizer's keys: its sidecar does (scripts/ory/kratos.ts).
    ...('jwksUrl' in identity ? { TOKEN_JWKS_URL: identity.jwksUrl } : {}),
    ...options.env,
  });
  const appLog = keptAppLog();
  const app = await createApp(config, appLog.logger);
  server.on('request', app);
  const liveSessions = (app.locals as AppLocals).liveSessions;
  attachLiveSessions(server, liveSessions, config);
  const logSources: LogSource[] = [appLog.source];
  if ('errors' in identity) logSources.push({ name: `Kratos ${identity.publicUrl} (error lines)`, lines: identity.errors });
  if (oauth2 && 'errors' in oauth2) logSources.push({ name: `Hydra ${oauth2.publicUrl} (error lines)`, lines: oauth2.errors });
  const forget = reportOnFailure(logSources);

  return {
    appUrl,
    identity,
    tokenTrust,
    backend,
    providers,
    oauth2: oauth2 && { publicUrl: oauth2.publicUrl, adminUrl: oauth2.adminUrl },
    server,
    app,
    liveSessions,
    locals: app.locals as AppLocals,
    appLog: appLog.source.lines,
    async close() {
      forget();
      await liveSessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
      await identity.close();
      await oauth2?.close();
      await providers?.close();
    },
  };
}

/** Real Hydra on real Kratos runs, the stand-in otherwise; the app's pages are its UI either way. */
async function startOAuth2(appUrl: string, identityProviderAdminUrl: string, clock: Clock | undefined) {
  if (onRealKratos) return startHydra({ appUrl, identityProviderAdminUrl });
  const urls = {
    login: appUrl + HYDRA_UI_PATHS.login,
    consent: appUrl + HYDRA_UI_PATHS.consent,
    logout: appUrl + HYDRA_UI_PATHS.logout,
    error: appUrl + HYDRA_UI_PATHS.error,
    postLogout: appUrl + HYDRA_UI_PATHS.postLogout,
  };
  return startOAuth2Provider({ publicPort: 0, adminPort: 0, database: ':memory:', urls, identityProviderAdminUrl, clock });
}

/** The app's variables for the embedded providers: every provider's origin (authorize pages, pictures) and One Tap at the fake Google. */
function providerAppEnv(providers: FakeProviders): Record<string, string> {
  const fakes = [providers.google, providers.microsoft, providers.dropbox, providers.apple];
  return {
    OIDC_PROVIDER_ORIGINS: [...new Set(fakes.map((fake) => fake.origin))].join(','),
    GOOGLE_CLIENT_ID: providers.google.clientId,
    GOOGLE_GSI_SCRIPT_URL: providers.google.gsiScriptUrl ?? '',
  };
}

/**
 * Tests that can only run against the identity stand-in (they move its clock, or use what real Kratos
 * has no equivalent for). Against real Kratos they are skipped with the reason in their name, so the
 * run's summary names each one: `standInOnly('moves the clock')('expired code …', async () => …)`.
 */
export function standInOnly(reason: string): (name: string, fn: TestFunction, timeout?: number) => void {
  if (!onRealKratos) return (name, fn, timeout) => it(name, fn, timeout);
  return (name, fn) => it.skip(`${name} [stand-in only: ${reason}]`, fn);
}

/** The same for a whole `describe` block. */
export function describeStandInOnly(reason: string): (name: string, fn: () => void) => void {
  if (!onRealKratos) return (name, fn) => describe(name, fn);
  return (name, fn) => describe.skip(`${name} [stand-in only: ${reason}]`, fn);
}
