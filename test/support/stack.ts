import { describe, it, type TestFunction } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { startIdentity, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { startBackend } from '../../embedded/backend/index.ts';
import { merge } from '../../embedded/identity/config.ts';
import { startFakeProviders, type FakeProviders } from '../../embedded/providers/index.ts';
import { identityProviderConfig } from '../../embedded/providers/identity-config.ts';
import type { Clock } from '../../embedded/clock.ts';
import type { JSONWebKeySet } from 'jose';
import { startKratos } from '../../scripts/ory/kratos.ts';

/**
 * Which identity service the stacks of this run use: the stand-in, or real Ory Kratos when
 * ORY_TARGET=kratos (the `*-ory` vitest projects set it; the binary comes from `npm run ory:build`).
 */
export const onRealKratos = process.env.ORY_TARGET === 'kratos';

/** Real Kratos, configured from the same stand-in settings a test gives (see scripts/ory/kratos-config.ts). */
async function startRealIdentity(appUrl: string, config: StartIdentityOptions['config'], clock: Clock | undefined) {
  // Real Kratos reads the real time: a test that moves a clock belongs to the stand-in suites only.
  if (clock) throw new Error('startStack: a test clock works with the identity stand-in only (real Kratos reads the real time)');
  const kratos = await startKratos({ appUrl, config });
  return { publicUrl: kratos.publicUrl, adminUrl: kratos.adminUrl, jwks: kratos.jwks, issuer: `${kratos.publicUrl}/`, close: kratos.close };
}

export type Stack = {
  appUrl: string;
  identity: { publicUrl: string; adminUrl: string };
  /** What a backend must be told to trust the identity service's session JWTs (empty for the stand-in, whose JWKS the backend finds itself). */
  tokenTrust: { jwks?: JSONWebKeySet; issuer?: string };
  backend: { url: string };
  /** The embedded upstream providers (Google, Microsoft, Dropbox, Apple), with `socialProviders: true`. */
  providers?: FakeProviders;
  server: http.Server;
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
  } = {},
): Promise<Stack> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const providers = options.socialProviders ? await startFakeProviders({ clock: options.clock }) : undefined;
  const identityConfig: StartIdentityOptions['config'] = providers
    ? merge({ selfservice: { methods: { oidc: identityProviderConfig(providers) } } }, options.identityConfig)
    : options.identityConfig;
  const identity = onRealKratos
    ? await startRealIdentity(appUrl, identityConfig, options.clock)
    : await startIdentity({
        publicPort: 0,
        adminPort: 0,
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
    identityPublicUrl: identity.publicUrl,
    identityAdminUrl: identity.adminUrl,
    ...tokenTrust,
    clock: options.clock,
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
    ...options.env,
  });
  const app = await createApp(config, pino({ level: 'silent' }));
  server.on('request', app);

  return {
    appUrl,
    identity,
    tokenTrust,
    backend,
    providers,
    server,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await backend.close();
      await identity.close();
      await providers?.close();
    },
  };
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
