// Configuration: the same keys as Kratos's own configuration file (a subset), with defaults for
// local use of this product. Loaded from YAML or JSON (identity.config.yaml by default).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface Hook {
  hook: string;
}
/**
 * One social sign-in provider, in Kratos's keys (selfservice/strategy/oidc/provider_config.go). The
 * stand-in reads `issuer_url` for every type (Kratos builds Google's, Apple's and Microsoft's hosts in),
 * so its fakes can stand for them, and ignores `mapper_url`: it maps claims itself (oidc/mappers.ts).
 */
export interface OidcProvider {
  id: string;
  provider?: string;
  label?: string;
  client_id?: string;
  client_secret?: string;
  issuer_url?: string;
  scope?: string[];
  microsoft_tenant?: string;
  subject_source?: string;
  apple_team_id?: string;
  apple_private_key_id?: string;
  apple_private_key?: string;
  additional_id_token_audiences?: string[];
  pkce?: 'auto' | 'force' | 'never';
  claims_source?: 'id_token' | 'userinfo';
  mapper_url?: string;
  requested_claims?: unknown;
}

/** `after` of a flow, per method (`password`, `oidc`) or for all (`hooks`). */
export interface AfterHooks {
  default_browser_return_url?: string;
  hooks?: Hook[];
}
export interface TokenizerTemplate {
  ttl?: string;
  /** Extension: static claims merged into the JWT (stands in for Kratos's Jsonnet claims mapper). */
  claims?: Record<string, unknown>;
  subject_source?: 'id' | 'external_id';
  /** Optional file:// or base64:// JWK set holding the private key (otherwise a persisted generated key). */
  jwks_url?: string;
}

export interface IdentityConfig {
  serve: {
    public: { base_url?: string; host: string; port: number };
    admin: { base_url?: string; host: string; port: number; api_key?: string };
  };
  database: { path: string };
  selfservice: {
    default_browser_return_url: string;
    allowed_return_urls: string[];
    methods: {
      password: {
        enabled: boolean;
        config: { min_password_length: number; max_password_length: number; identifier_similarity_check_enabled: boolean; haveibeenpwned_enabled: boolean };
      };
      profile: { enabled: boolean };
      code: { enabled: boolean; config: { lifespan: string; max_submissions: number } };
      link: { enabled: boolean; config: { lifespan: string } };
      oidc: { enabled: boolean; config: { base_redirect_uri?: string; providers: OidcProvider[] } };
    };
    flows: {
      error: { ui_url: string };
      login: {
        ui_url: string;
        lifespan: string;
        /** `hooks` (all methods) and `password.hooks` (which, when set, replace them); read: require_verified_address. */
        after: AfterHooks & { password?: AfterHooks; oidc?: AfterHooks };
      };
      registration: {
        enabled: boolean;
        ui_url: string;
        lifespan: string;
        style: 'profile_first' | 'unified';
        after: AfterHooks & { password: { default_browser_return_url?: string; hooks: Hook[] }; oidc?: AfterHooks };
      };
      settings: { ui_url: string; lifespan: string; privileged_session_max_age: string; after: { default_browser_return_url?: string } };
      recovery: { enabled: boolean; ui_url: string; lifespan: string; use: 'code' | 'link'; notify_unknown_recipients: boolean };
      verification: {
        enabled: boolean;
        ui_url: string;
        lifespan: string;
        use: 'code' | 'link';
        notify_unknown_recipients: boolean;
        after: { default_browser_return_url?: string };
      };
      logout: { after: { default_browser_return_url?: string } };
    };
  };
  session: {
    lifespan: string;
    cookie: { name: string; persistent: boolean; same_site?: string; path?: string; domain?: string; secure?: boolean };
    whoami: { tokenizer: { templates: Record<string, TokenizerTemplate> } };
  };
  cookies: { same_site: string; path: string; domain?: string; secure: boolean };
  hashers: { argon2: { memory: number; iterations: number; parallelism: number; key_length: number; salt_length: number } };
  courier: { smtp: { connection_uri?: string; from_address: string; from_name: string } };
  identity: { default_schema_id: string; schemas: { id: string; url?: string }[] };
  /**
   * Kratos's OAuth2 integration: the OAuth2 provider's (Hydra's) admin URL; unset: `login_challenge` is
   * refused. `headers` go with every admin call; `override_return_to` makes the login request's
   * request_url the flow's return_to (oauth2.ts).
   */
  oauth2_provider?: { url?: string; headers?: Record<string, string>; override_return_to?: boolean };
}

export type DeepPartial<T> = { [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K] };

export const DEFAULT_APP_URL = 'http://localhost:3000';

/** UI paths of the app (docs/architecture.md). */
export const UI_PATHS = {
  login: '/sign-in',
  registration: '/sign-up',
  recovery: '/forgot-password',
  verification: '/sign-up/verification',
  settings: '/profile-settings',
  error: '/error',
  defaultReturn: '/',
} as const;

/** The keys that depend on the app's public URL. */
export function appUrlConfig(appUrl: string): DeepPartial<IdentityConfig> {
  const base = appUrl.replace(/\/+$/, '');
  return {
    selfservice: {
      default_browser_return_url: base + UI_PATHS.defaultReturn,
      allowed_return_urls: [base],
      flows: {
        error: { ui_url: base + UI_PATHS.error },
        login: { ui_url: base + UI_PATHS.login },
        registration: { ui_url: base + UI_PATHS.registration },
        settings: { ui_url: base + UI_PATHS.settings },
        recovery: { ui_url: base + UI_PATHS.recovery },
        verification: { ui_url: base + UI_PATHS.verification },
      },
    },
  } as DeepPartial<IdentityConfig>;
}

export function defaultConfig(): IdentityConfig {
  const base: IdentityConfig = {
    serve: {
      public: { host: '127.0.0.1', port: 4433 },
      admin: { host: '127.0.0.1', port: 4434 },
    },
    database: { path: './data/identity.sqlite' },
    selfservice: {
      default_browser_return_url: '',
      allowed_return_urls: [],
      methods: {
        password: {
          enabled: true,
          config: { min_password_length: 8, max_password_length: 72, identifier_similarity_check_enabled: true, haveibeenpwned_enabled: true },
        },
        profile: { enabled: true },
        code: { enabled: true, config: { lifespan: '1h', max_submissions: 5 } },
        link: { enabled: true, config: { lifespan: '1h' } },
        oidc: { enabled: false, config: { providers: [] } },
      },
      flows: {
        error: { ui_url: '' },
        // The product admits only verified addresses (docs/decisions/090-require-verified-address.md).
        login: { ui_url: '', lifespan: '1h', after: { hooks: [{ hook: 'require_verified_address' }] } },
        registration: {
          enabled: true,
          ui_url: '',
          lifespan: '1h',
          style: 'profile_first',
          after: { password: { hooks: [{ hook: 'show_verification_ui' }] }, oidc: { hooks: [{ hook: 'session' }] } },
        },
        settings: { ui_url: '', lifespan: '1h', privileged_session_max_age: '1h', after: {} },
        recovery: { enabled: true, ui_url: '', lifespan: '1h', use: 'code', notify_unknown_recipients: false },
        verification: { enabled: true, ui_url: '', lifespan: '1h', use: 'code', notify_unknown_recipients: false, after: {} },
        logout: { after: {} },
      },
    },
    session: {
      lifespan: '360h',
      cookie: { name: 'ory_kratos_session', persistent: true },
      whoami: {
        tokenizer: {
          templates: {
            authorization: { ttl: '1680000ms', claims: { aud: 'accounts-backend' } },
            authentication: { ttl: '1680000ms', claims: { aud: 'accounts' } },
          },
        },
      },
    },
    cookies: { same_site: 'Lax', path: '/', secure: false },
    // OWASP-ish argon2id defaults (memory in KiB); tests pass tiny values.
    hashers: { argon2: { memory: 65536, iterations: 2, parallelism: 1, key_length: 32, salt_length: 16 } },
    courier: { smtp: { from_address: 'no-reply@accounts.local', from_name: 'Accounts' } },
    identity: { default_schema_id: 'default', schemas: [{ id: 'default' }] },
  };
  return merge(base, appUrlConfig(DEFAULT_APP_URL)) as IdentityConfig;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge: objects merge, arrays and scalars replace. */
export function merge<T>(base: T, over: unknown): T {
  if (!isPlainObject(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
  for (const [k, v] of Object.entries(over)) {
    if (v === undefined) continue;
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? merge(out[k], v) : v;
  }
  return out as T;
}

export function loadConfigFile(path: string): DeepPartial<IdentityConfig> {
  const text = readFileSync(path, 'utf8');
  const parsed: unknown = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  if (parsed != null && !isPlainObject(parsed)) throw new Error(`identity config ${path}: expected a mapping at the top level`);
  return (parsed ?? {}) as DeepPartial<IdentityConfig>;
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000 };

/** Parses a Go duration ("1h", "15m", "1h30m", "1680000ms"); returns milliseconds or NaN. */
export function parseDuration(s: string | undefined): number {
  if (typeof s !== 'string' || s.trim() === '') return Number.NaN;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    consumed += m[0].length;
  }
  return consumed === s.length && consumed > 0 ? total : Number.NaN;
}

export function durationMs(s: string, fallback: number): number {
  const v = parseDuration(s);
  return Number.isFinite(v) ? v : fallback;
}
