// Starting the two services a scenario runs against, with one configuration: the stand-in
// (embedded/identity) and real Ory Kratos v1.3.1 (scripts/ory/kratos.ts, the same settings translated
// by scripts/ory/kratos-config.ts). Both on free ports, both with the same cheap argon2 parameters.
import { startIdentity, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { startKratos } from '../../scripts/ory/kratos.ts';
import type { Target } from './client.ts';
import { merge } from '../../embedded/identity/config.ts';
import { startHydra } from '../../scripts/ory/hydra.ts';
import { freePort } from '../../scripts/ory/process.ts';

export type ScenarioConfig = NonNullable<StartIdentityOptions['config']>;

/** The app's URL in the services' configuration (ui_url, allowed_return_urls). Nothing listens there: scenarios talk to the services directly. */
export const APP_URL = 'http://app.conformance.test:3000';

const ARGON2 = { memory: 1024, iterations: 1, parallelism: 1 };

/** `errors()`: the error-level lines a real Ory process logged so far (none for the stand-in), to explain a failed scenario. */
export type RunningTarget = Target & { close(): Promise<void>; errors(): string[] };
export type Pair = { standIn: RunningTarget; kratos: RunningTarget; close(): Promise<void> };

/** Optional wiring of a target: its admin port fixed (so an OAuth2 provider can be told it first) and Kratos's oauth2_provider.url. */
export type TargetOptions = { adminPort?: number; oauth2ProviderUrl?: string };

export async function startStandIn(config?: ScenarioConfig, options: TargetOptions = {}): Promise<RunningTarget> {
  const wired = options.oauth2ProviderUrl ? merge({ oauth2_provider: { url: options.oauth2ProviderUrl } }, config) : config;
  const service = await startIdentity({
    publicPort: 0,
    adminPort: options.adminPort ?? 0,
    database: ':memory:',
    appUrl: APP_URL,
    argon2: ARGON2,
    config: wired,
  });
  return { name: 'stand-in', publicUrl: service.publicUrl, adminUrl: service.adminUrl, appUrl: APP_URL, errors: () => [], close: () => service.close() };
}

export async function startRealKratos(config?: ScenarioConfig, options: TargetOptions = {}): Promise<RunningTarget> {
  const kratos = await startKratos({ appUrl: APP_URL, config, adminPort: options.adminPort, oauth2ProviderUrl: options.oauth2ProviderUrl });
  return {
    name: 'kratos',
    publicUrl: kratos.publicUrl,
    adminUrl: kratos.adminUrl,
    appUrl: APP_URL,
    errors: () => kratos.errors(),
    close: () => kratos.close(),
  };
}

/** Two targets started together; if one fails to start, the other is closed and the failure thrown. */
async function startBoth<T extends { close(): Promise<void> }>(starting: [Promise<T>, Promise<T>]): Promise<{ standIn: T; kratos: T; close(): Promise<void> }> {
  const [standIn, kratos] = await Promise.allSettled(starting);
  if (standIn.status === 'rejected' || kratos.status === 'rejected') {
    if (standIn.status === 'fulfilled') await standIn.value.close();
    if (kratos.status === 'fulfilled') await kratos.value.close();
    throw standIn.status === 'rejected' ? standIn.reason : (kratos as PromiseRejectedResult).reason;
  }
  return {
    standIn: standIn.value,
    kratos: kratos.value,
    close: async () => {
      await Promise.all([standIn.value.close(), kratos.value.close()]);
    },
  };
}

/** Both services with `config` (started together; if one fails the other is closed). */
export function startPair(config?: ScenarioConfig): Promise<Pair> {
  return startBoth([startStandIn(config), startRealKratos(config)]);
}

/** A target wired to its own real Hydra v2.3.0 (`oauth2_provider.url`; Hydra's identity_provider is the target's admin URL). */
export type OAuth2Target = RunningTarget & { oauth2: { publicUrl: string; adminUrl: string } };
export type OAuth2Pair = { standIn: OAuth2Target; kratos: OAuth2Target; close(): Promise<void> };

async function withHydra(
  start: (config: ScenarioConfig | undefined, options: TargetOptions) => Promise<RunningTarget>,
  config?: ScenarioConfig,
): Promise<OAuth2Target> {
  const adminPort = await freePort();
  const hydra = await startHydra({ appUrl: APP_URL, identityProviderAdminUrl: `http://127.0.0.1:${adminPort}` });
  try {
    const target = await start(config, { adminPort, oauth2ProviderUrl: hydra.adminUrl });
    return {
      ...target,
      oauth2: { publicUrl: hydra.publicUrl, adminUrl: hydra.adminUrl },
      errors: () => [...target.errors(), ...hydra.errors().map((line) => `hydra: ${line}`)],
      close: async () => {
        await target.close();
        await hydra.close();
      },
    };
  } catch (error) {
    await hydra.close();
    throw error;
  }
}

/** Both services, each with its own real Hydra (one per target, so neither sees the other's challenges or sessions). */
export function startOAuth2Pair(config?: ScenarioConfig): Promise<OAuth2Pair> {
  return startBoth([withHydra(startStandIn, config), withHydra(startRealKratos, config)]);
}
