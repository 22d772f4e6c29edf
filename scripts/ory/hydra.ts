// Starts a real Ory Hydra (the binary `npm run ory:build` made) for the app: its login, consent,
// logout and error pages are the app's, its data in its own SQLite file, on free ports unless told.
// Used by the real-Ory suites and `npm run start:ory`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPair, randomBytes, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
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

export type RealHydra = {
  publicUrl: string;
  adminUrl: string;
  /** Hydra's error-level log lines so far. */
  errors(): string[];
  close(): Promise<void>;
};

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

const generateKeyPairAsync = promisify(generateKeyPair);

/** The key sets Hydra signs with (ID tokens; JWT access tokens) and publishes at /.well-known/jwks.json. */
const SIGNING_KEY_SETS = ['hydra.openid.id-token', 'hydra.jwt.access-token'];

// One RSA-2048 signing key per set, made once per process and given to every Hydra it starts.
let signingKeys: Promise<JsonWebKey[]> | undefined;
const makeSigningKeys = () =>
  (signingKeys ??= Promise.all(
    SIGNING_KEY_SETS.map(async () => {
      const { privateKey } = await generateKeyPairAsync('rsa', { modulusLength: 2048 });
      return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
    }),
  ));

/**
 * Hydra makes a missing signing key on first use, RSA 4096, inside the request that needs it (the
 * first authorization to issue a code, or the first JWKS read). On a loaded machine that outlasts
 * Hydra's own 10 s write deadline: the request fails and the key is not kept, so the next one starts
 * over (seen in the conformance suite under parallel load). Each empty set gets a key of ours through
 * the admin API before anyone signs in; a kept data folder's keys stay as they are.
 */
async function provideSigningKeys(adminUrl: string): Promise<void> {
  const keys = await makeSigningKeys();
  for (const [index, set] of SIGNING_KEY_SETS.entries()) {
    const url = `${adminUrl}/admin/keys/${set}`;
    const existing = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    if (existing.ok && ((await existing.json()) as { keys?: unknown[] }).keys?.length) continue;
    const stored = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keys: [keys[index]] }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!stored.ok) throw new Error(`real Hydra did not take the ${set} signing key: ${stored.status} ${await stored.text()}`);
  }
}

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
    await provideSigningKeys(adminUrl).catch(async (error: unknown) => {
      await hydra.stop();
      throw error;
    });
    return {
      publicUrl,
      adminUrl,
      errors: () => hydra.errors(),
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
