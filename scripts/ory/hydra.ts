// Starts a real Ory Hydra (the binary `npm run ory:build` made) for the app: its login, consent,
// logout and error pages are the app's, its data in its own SQLite file, on free ports unless told.
// Used by the real-Ory suites and `npm run start:ory`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { ROUTES } from '../../core/routes.ts';
import { binaryPath } from './pins.ts';
import { freePort, migratedDatabase, sqliteDsn, startOryProcess } from './process.ts';

export const hydraBinary = (): string => binaryPath('hydra');
export const hydraAvailable = (): boolean => existsSync(hydraBinary());

/** The app's pages Hydra sends the browser to (the stand-in in embedded/oauth2 is given the same). */
export const HYDRA_UI_PATHS = {
  login: ROUTES.signIn,
  consent: ROUTES.consent,
  logout: ROUTES.logout,
  error: ROUTES.flowError,
  postLogout: ROUTES.home,
} as const;

export type RealHydra = { publicUrl: string; adminUrl: string; close(): Promise<void> };

export type StartHydraOptions = {
  appUrl: string;
  /** Kratos's admin URL: Hydra's logout then ends the Kratos session too. */
  identityProviderAdminUrl?: string;
  publicPort?: number;
  adminPort?: number;
  /** Keep data here (start:ory); default: a temporary folder removed on close. */
  dataDir?: string;
  stdio?: 'inherit' | 'pipe';
  logLevel?: string;
  /** The host name in Hydra's URLs (start:ory: localhost). */
  urlHost?: string;
};

export async function startHydra(options: StartHydraOptions): Promise<RealHydra> {
  if (!hydraAvailable()) throw new Error(`real Hydra is not built (${hydraBinary()}): run npm run ory:build`);
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'accounts-hydra-'));
  mkdirSync(dir, { recursive: true });
  const publicPort = options.publicPort ?? (await freePort());
  const adminPort = options.adminPort ?? (await freePort());
  const host = options.urlHost ?? '127.0.0.1';
  const publicUrl = `http://${host}:${publicPort}`;
  const adminUrl = `http://${host}:${adminPort}`;
  const app = options.appUrl.replace(/\/+$/, '');
  const secretFile = join(dir, 'secret');
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(24).toString('hex'), { mode: 0o600 });
  const database = join(dir, 'hydra.sqlite');
  const config = {
    dsn: sqliteDsn(database),
    // Kratos spells it `warning`, Hydra `warn`: callers may use Kratos's word for both.
    log: { level: options.logLevel === 'warning' ? 'warn' : (options.logLevel ?? 'error'), format: 'json', leak_sensitive_values: false },
    serve: {
      public: { host: '127.0.0.1', port: publicPort },
      admin: { host: '127.0.0.1', port: adminPort },
      cookies: { same_site_mode: 'Lax' },
    },
    urls: {
      self: { issuer: `${publicUrl}/`, public: `${publicUrl}/`, admin: `${adminUrl}/` },
      login: app + HYDRA_UI_PATHS.login,
      consent: app + HYDRA_UI_PATHS.consent,
      logout: app + HYDRA_UI_PATHS.logout,
      error: app + HYDRA_UI_PATHS.error,
      post_logout_redirect: app + HYDRA_UI_PATHS.postLogout,
      ...(options.identityProviderAdminUrl ? { identity_provider: { url: options.identityProviderAdminUrl } } : {}),
    },
    secrets: { system: [readFileSync(secretFile, 'utf8').trim()] },
    oidc: { subject_identifiers: { supported_types: ['public'] } },
  };
  const configFile = join(dir, 'hydra.yml');
  writeFileSync(configFile, stringify(config), { mode: 0o600 });
  if (!existsSync(database)) migratedDatabase(hydraBinary(), 'hydra', ['migrate', 'sql', 'up', '-e', '--yes'], configFile, database);

  const removeData = () => {
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    const hydra = await startOryProcess('hydra', hydraBinary(), ['serve', 'all', '-c', configFile, '--dev', '--sqa-opt-out'], {
      cwd: dir,
      readyUrls: [`${adminUrl}/health/ready`, `${publicUrl}/health/ready`],
      stdio: options.stdio,
    });
    return {
      publicUrl,
      adminUrl,
      async close() {
        await hydra.stop();
        removeData();
      },
    };
  } catch (error) {
    removeData();
    throw error;
  }
}
