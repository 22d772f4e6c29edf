// Starting the two services a scenario runs against, with one configuration: the stand-in
// (embedded/identity) and real Ory Kratos v1.3.1 (scripts/ory/kratos.ts, the same settings translated
// by scripts/ory/kratos-config.ts). Both on free ports, both with the same cheap argon2 parameters.
import { startIdentity, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { startKratos } from '../../scripts/ory/kratos.ts';
import type { Target } from './client.ts';

export type ScenarioConfig = NonNullable<StartIdentityOptions['config']>;

/** The app's URL in the services' configuration (ui_url, allowed_return_urls). Nothing listens there: scenarios talk to the services directly. */
export const APP_URL = 'http://app.conformance.test:3000';

const ARGON2 = { memory: 1024, iterations: 1, parallelism: 1 };

export type RunningTarget = Target & { close(): Promise<void> };
export type Pair = { standIn: RunningTarget; kratos: RunningTarget; close(): Promise<void> };

export async function startStandIn(config?: ScenarioConfig): Promise<RunningTarget> {
  const service = await startIdentity({ publicPort: 0, adminPort: 0, database: ':memory:', appUrl: APP_URL, argon2: ARGON2, config });
  return { name: 'stand-in', publicUrl: service.publicUrl, adminUrl: service.adminUrl, appUrl: APP_URL, close: () => service.close() };
}

export async function startRealKratos(config?: ScenarioConfig): Promise<RunningTarget> {
  const kratos = await startKratos({ appUrl: APP_URL, config });
  return { name: 'kratos', publicUrl: kratos.publicUrl, adminUrl: kratos.adminUrl, appUrl: APP_URL, close: () => kratos.close() };
}

/** Both services with `config` (started together; if one fails the other is closed). */
export async function startPair(config?: ScenarioConfig): Promise<Pair> {
  const [standIn, kratos] = await Promise.allSettled([startStandIn(config), startRealKratos(config)]);
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
