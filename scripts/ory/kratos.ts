// Starts a real Ory Kratos (the binary `npm run ory:build` made) with the stand-in's configuration
// translated by kratos-config.ts: on free ports, with its own SQLite file, a fresh tokenizer key, and
// a mail catcher for the HTTP courier. Used by the test stacks (test/support/stack.ts), the
// conformance suite and `npm run start:ory`.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { stringify } from 'yaml';
import { buildConfig, type StartIdentityOptions } from '../../embedded/identity/index.ts';
import { kratosConfig } from './kratos-config.ts';
import { binaryPath } from './pins.ts';
import { freePort, migratedDatabase, servedSqliteDsn, startOryProcess, type OryProcess } from './process.ts';

export const kratosBinary = (): string => binaryPath('kratos');
export const kratosAvailable = (): boolean => existsSync(kratosBinary());

const SCHEMA_URL = pathToFileURL(fileURLToPath(new URL('../../embedded/identity/identity.schema.json', import.meta.url))).href;

export type MailMessage = { recipient: string; template_type: string; subject?: string; body: string; received_at: string };

export type RealKratos = {
  publicUrl: string;
  adminUrl: string;
  /** The tokenizer's public keys: what a backend verifies the session JWTs with. */
  jwks: JSONWebKeySet;
  /** The same keys over HTTP, for a backend in another process. */
  jwksUrl: string;
  /** Kratos's error-level log lines so far. */
  errors(): string[];
  close(): Promise<void>;
};

export type StartKratosOptions = {
  appUrl: string;
  /** Stand-in config overrides (the same ones a test would give the stand-in). */
  config?: StartIdentityOptions['config'];
  configFile?: string;
  /** Fixed ports (start:ory); default: free ones. */
  publicPort?: number;
  adminPort?: number;
  /** Keep data here (start:ory); default: a temporary folder removed on close. */
  dataDir?: string;
  /** Kratos's own log (default: collected, printed only when it fails to start). */
  stdio?: 'inherit' | 'pipe';
  logLevel?: string;
  /** Called with each delivered message (start:ory prints them). */
  onMail?: (message: MailMessage) => void;
  /**
   * Run the courier (`--watch-courier`), which delivers queued mail to the sidecar (default true). The app's
   * test stacks turn it off: their tests read the codes from the admin API, where a message is listed once
   * queued, and the courier's writes were what stalled theirs on SQLite (see servedSqliteDsn in process.ts:
   * one client sending and submitting verification codes for 45 s stalled 3 and 4 times with the courier
   * in the rollback journal, 1 and 1 in WAL, never without it).
   */
  courier?: boolean;
  /** The host name in Kratos's base URLs (start:ory: localhost, as `npm start` names its services). */
  urlHost?: string;
  /** Hydra's admin URL, for Kratos's OAuth2 login integration. */
  oauth2ProviderUrl?: string;
  /** Hashing cost (memory in KiB); default the cheap test settings. `null`: the configuration's own. */
  argon2?: { memory: number; iterations: number; parallelism: number } | null;
};

/**
 * A tiny HTTP server beside Kratos: the endpoint of its courier (hands each message to `onMail`, answers 200) and
 * the public half of the tokenizer's keys at /.well-known/jwks.json, which real Kratos does not publish
 * itself (a backend verifying session JWTs reads them here, as it would from the operator's JWKS URL).
 */
async function startSidecar(jwks: JSONWebKeySet, onMail?: (message: MailMessage) => void): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const ctx = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        const message = {
          recipient: String(ctx.recipient ?? ''),
          template_type: String(ctx.template_type ?? ''),
          subject: typeof ctx.subject === 'string' ? ctx.subject : undefined,
          body: String(ctx.body ?? ''),
          received_at: new Date().toISOString(),
        };
        onMail?.(message);
      } catch {
        // A body we cannot read is still acknowledged: the courier must not retry forever.
      }
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A private ES256 JWKS for the tokenizer, and its public half for the backend. */
async function tokenizerKeys(): Promise<{ privateSet: JSONWebKeySet; publicSet: JSONWebKeySet }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = randomUUID();
  const meta = { kid, alg: 'ES256', use: 'sig' };
  return { privateSet: { keys: [{ ...(await exportJWK(privateKey)), ...meta }] }, publicSet: { keys: [{ ...(await exportJWK(publicKey)), ...meta }] } };
}

/** Cheap hashing for tests, as the stand-in's test stacks use; start:ory keeps the configured cost. */
const TEST_ARGON2 = { memory: 1024, iterations: 1, parallelism: 1 };

/** The cookie and cipher secret of a data folder: kept with the data, so a restart keeps sessions valid. */
function persistentSecret(dir: string): string {
  const file = join(dir, 'secret');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/**
 * Starts real Kratos. Free ports are found a moment before Kratos binds them (process.ts): a start that
 * lost one to another process meanwhile is tried again on new ones.
 */
export async function startKratos(options: StartKratosOptions): Promise<RealKratos> {
  const fixedPorts = options.publicPort !== undefined || options.adminPort !== undefined;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startKratosOnce(options);
    } catch (error) {
      if (fixedPorts || attempt >= 3 || !/address already in use/.test((error as Error).message)) throw error;
    }
  }
}

async function startKratosOnce(options: StartKratosOptions): Promise<RealKratos> {
  if (!kratosAvailable()) throw new Error(`real Kratos is not built (${kratosBinary()}): run npm run ory:build`);
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'accounts-kratos-'));
  mkdirSync(dir, { recursive: true });
  const keys = await tokenizerKeys();
  const sidecar = await startSidecar(keys.publicSet, options.onMail);
  const publicPort = options.publicPort ?? (await freePort());
  const adminPort = options.adminPort ?? (await freePort());
  const host = options.urlHost ?? '127.0.0.1';
  const publicUrl = `http://${host}:${publicPort}`;
  const adminUrl = `http://${host}:${adminPort}`;
  const jwksFile = join(dir, 'tokenizer.jwks.json');
  writeFileSync(jwksFile, JSON.stringify(keys.privateSet), { mode: 0o600 });
  const database = join(dir, 'kratos.sqlite');
  const config = kratosConfig(
    buildConfig({
      appUrl: options.appUrl,
      config: options.config,
      configFile: options.configFile,
      argon2: options.argon2 === null ? undefined : (options.argon2 ?? TEST_ARGON2),
    }),
    {
      publicUrl,
      adminUrl,
      publicPort,
      adminPort,
      dsn: servedSqliteDsn(database),
      schemaUrl: SCHEMA_URL,
      jwksUrl: pathToFileURL(jwksFile).href,
      courierUrl: `${sidecar.url}/mail`,
      secret: persistentSecret(dir),
      logLevel: options.logLevel,
      oauth2ProviderUrl: options.oauth2ProviderUrl,
      // Cheap test hashing answers in microseconds: the unknown-identifier delay follows it.
      unknownIdentifierDelay: options.argon2 === null ? undefined : { duration: '20ms', deviation: '10ms' },
    },
  );
  const configFile = join(dir, 'kratos.yml');
  writeFileSync(configFile, stringify(config), { mode: 0o600 });
  if (!existsSync(database)) migratedDatabase(kratosBinary(), 'kratos', ['migrate', 'sql', '-e', '--yes'], configFile, database);
  const closeCatcher = async () => {
    await new Promise<void>((resolve) => sidecar.server.close(() => resolve()));
    if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
  };

  let kratos: OryProcess;
  try {
    kratos = await startOryProcess(
      'kratos',
      kratosBinary(),
      ['serve', '-c', configFile, '--dev', ...(options.courier === false ? [] : ['--watch-courier']), '--sqa-opt-out'],
      {
        cwd: dir,
        readyUrls: [`${adminUrl}/health/ready`, `${publicUrl}/health/ready`],
        stdio: options.stdio,
      },
    );
  } catch (error) {
    await closeCatcher();
    throw error;
  }
  const close = async () => {
    await kratos.stop();
    await closeCatcher();
  };
  return { publicUrl, adminUrl, jwks: keys.publicSet, jwksUrl: `${sidecar.url}/.well-known/jwks.json`, errors: () => kratos.errors(), close };
}
