import { z } from 'zod';

// Development-only secret: production refuses to start with it (see loadConfig).
export const DEV_SESSION_SECRET = 'dev-only-session-secret-change-me-0123456789';

export const SUPPORTED_LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'] as const;
export type Language = (typeof SUPPORTED_LANGUAGES)[number];

const list = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
    );

const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true' || value === '1');

// A bare `z.url()` accepts `localhost:4433` (scheme "localhost:"): ask for the scheme we will use.
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const milliseconds = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

// Express's "trust proxy": a hop count, true/false, or a list of addresses and subnet names.
const trustProxy = z
  .string()
  .default('loopback')
  .transform((value): boolean | number | string => {
    if (value === 'true') return true;
    if (value === 'false') return false;
    return /^\d+$/.test(value) ? Number(value) : value;
  });

/** `true` or an all-addresses subnet: every X-Forwarded-For entry is believed, the client's own included. */
function trustsEveryProxy(value: boolean | number | string): boolean {
  if (value === true) return true;
  if (typeof value !== 'string') return false;
  return value.split(',').some((entry) => ['0.0.0.0/0', '::/0'].includes(entry.trim()));
}

/** Every environment variable the app reads. The README's configuration table mirrors this schema. */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: httpUrl().default('http://localhost:3000'),
  ACCOUNT_HOST: z.string().default(''),
  KRATOS_PUBLIC_URL: httpUrl().default('http://localhost:4433'),
  KRATOS_BROWSER_URL: httpUrl().optional(),
  KRATOS_ADMIN_URL: httpUrl().default('http://localhost:4434'),
  KRATOS_ADMIN_API_KEY: z.string().default(''),
  HYDRA_PUBLIC_URL: httpUrl().optional(),
  HYDRA_ADMIN_URL: httpUrl().optional(),
  HYDRA_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
  // OAuth2 clients whose consent is given without asking (first-party apps): docs/decisions/130.
  OAUTH2_TRUSTED_CLIENT_IDS: list(''),
  BACKEND_URL: httpUrl().default('http://localhost:4500'),
  DOCUMENT_APP_URL: httpUrl().optional(),
  /** The desktop app's OAuth2 client (public, loopback redirects) for /authentication/gateway?request_login=1; unset: no desktop gateway. */
  GATEWAY_DESKTOP_CLIENT_ID: z.string().max(255).default(''),
  /** The mobile app's OAuth2 client (public, redirect PUBLIC_URL/authentication/gateway/callback); unset: no mobile gateway. */
  GATEWAY_MOBILE_CLIENT_ID: z.string().max(255).default(''),
  /** Where uploaded avatars are served from (the profile storage bucket); default: BACKEND_URL's origin. */
  AVATAR_STORAGE_URL: httpUrl().optional(),
  /** The product as people see it on every auth screen (decision 180). */
  BRAND_NAME: z.string().max(40).default('Accounts'),
  BRAND_LOGO_URL: z
    .string()
    .regex(/^(\/[^/]|https:\/\/)/, 'must be a path on this app or an https URL')
    .default('/logo.svg'),
  BRAND_ACCENT_COLOR: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, 'must be a #rrggbb colour')
    .optional(),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_SESSION_SECRET),
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** An external socket host for the live-session channel (decision 160); unset: the app serves /socket.io/ itself. Needs REDIS_URL. */
  SOCKET_URL: z.url({ protocol: /^(https?|wss?)$/, error: 'must be an http(s) or ws(s) URL' }).optional(),
  /** The tokenizer's key set (default: KRATOS_PUBLIC_URL/.well-known/jwks.json), its issuer (default KRATOS_PUBLIC_URL) and audience. */
  TOKEN_JWKS_URL: httpUrl().optional(),
  TOKEN_ISSUER: z.string().optional(),
  TOKEN_AUDIENCE: z.string().default('accounts-backend'),
  /** Shared with the backend and operators: POST /internal/force-reload needs it as a bearer token; unset: that endpoint is off. */
  FORCE_RELOAD_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LANGUAGES: list(SUPPORTED_LANGUAGES.join(',')).pipe(z.array(z.enum(SUPPORTED_LANGUAGES)).min(1)),
  DEFAULT_LANGUAGE: z.enum(SUPPORTED_LANGUAGES).default('en'),
  ALLOWED_RETURN_URLS: list(''),
  ASSETS_DIR: z.string().default('dist/public'),
  LOCALES_DIR: z.string().default('locales'),
  TRUST_PROXY: trustProxy,
  SHUTDOWN_DELAY_MS: milliseconds(0),
  SHUTDOWN_TIMEOUT_MS: milliseconds(10_000),
  KRATOS_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
  /**
   * Sockets each Ory client (Kratos public and admin, Hydra admin) opens at most. No more than MAX_IN_FLIGHT
   * (16) requests run at once, each with one Ory call at a time; the rest serve calls still running for
   * clients that gave up (their slot is free again) and a raised MAX_IN_FLIGHT. 8 to 256 measured alike
   * under load (README "On the server").
   */
  ORY_MAX_SOCKETS: z.coerce.number().int().min(1).default(64),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(65_000),
  MAX_CONNECTIONS: z.coerce.number().int().min(1).default(2_000),
  /** Sockets listening on PORT (SO_REUSEPORT, Linux): each takes one new connection per event-loop turn (decision 242). */
  LISTEN_SOCKETS: z.coerce.number().int().min(1).max(256).default(64),
  /** 16, not more: each event-loop turn finishes what that many requests allow, and shorter turns take new connections sooner (decision 242). */
  MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(16),
  /** Live-session sockets one instance holds (about 16 KB of heap each; README "Live sessions" sizes the heap for more). */
  MAX_SOCKETS: z.coerce.number().int().min(0).default(3_000),
  QUEUE_TIMEOUT_MS: z.coerce.number().int().min(1).default(1_000),
  ENABLE_TEST_ROUTES: flag(false),
  BACKEND_TIMEOUT_MS: milliseconds(10_000),
  BACKEND_UPLOAD_TIMEOUT_MS: milliseconds(60_000),
  BACKEND_TOKEN_CACHE_SIZE: z.coerce.number().int().min(1).default(10_000),
  /** Sockets the backend client opens at most: as with ORY_MAX_SOCKETS, MAX_IN_FLIGHT (16) requests make one backend call each at a time. */
  BACKEND_MAX_SOCKETS: z.coerce.number().int().min(1).default(64),
  PRIVILEGED_SESSION_MAX_AGE_MS: milliseconds(60 * 60 * 1000),
  ACCOUNT_DELETION_GRACE_DAYS: z.coerce.number().int().min(1).default(30),
  // Google One Tap (decision 120): on when a client id is set; the script's origin then joins the CSP.
  GOOGLE_CLIENT_ID: z.string().default(''),
  GOOGLE_GSI_SCRIPT_URL: httpUrl().default('https://accounts.google.com/gsi/client'),
  OIDC_PROVIDER_ORIGINS: list(''),
  /** Domain of the 30-day authentication cookie (spec §9), shared with the document app, e.g. `example.com`; unset: this host only. */
  AUTH_COOKIE_DOMAIN: z
    .string()
    .max(253)
    .regex(/^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/i, 'must be a domain name such as example.com')
    .optional(),
  // Cookie consent and analytics (decision 170): nothing non-essential exists, and no banner shows, until GTM_ID or LOG_SERVICE_URL is set.
  GTM_ID: z
    .string()
    .regex(/^[A-Za-z0-9-]{0,40}$/, 'must be a tag manager container id such as GTM-XXXXXX')
    .default(''),
  GTM_SCRIPT_URL: httpUrl().default('https://www.googletagmanager.com/gtm.js'),
  /** Where GA4 sends hits, named in the CSP's connect-src and img-src while GTM_ID is set. */
  ANALYTICS_ORIGINS: list('https://www.google-analytics.com,https://region1.google-analytics.com'),
  /** The log service: client events and load failures go there with navigator.sendBeacon. */
  LOG_SERVICE_URL: httpUrl().optional(),
  /** Trusted CDN headers with the visitor's country (ISO 3166-1) and region (code or name), e.g. cf-ipcountry; only behind that CDN. */
  GEO_COUNTRY_HEADER: z.string().max(100).default(''),
  GEO_REGION_HEADER: z.string().max(100).default(''),
  /** Ask the backend's user/user-location when no trusted header is configured. */
  USER_LOCATION_LOOKUP: flag(true),
  USER_LOCATION_TIMEOUT_MS: z.coerce.number().int().min(1).default(1_000),
  /** When the location is unknown: `ask` shows the banner (non-essential off until accepted), `allow` does not. */
  CONSENT_DEFAULT: z.enum(['ask', 'allow']).default('ask'),
  // reCAPTCHA v2 (decision 170): on while both keys are set.
  RECAPTCHA_SITE_KEY: z.string().max(100).default(''),
  RECAPTCHA_SECRET_KEY: z.string().max(100).default(''),
  RECAPTCHA_VERIFY_URL: httpUrl().default('https://www.google.com/recaptcha/api/siteverify'),
  RECAPTCHA_SCRIPT_URL: httpUrl().default('https://www.google.com/recaptcha/api.js'),
  RECAPTCHA_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
  /** Sign-in asks for the captcha after this many failed sign-ins from one IP or for one address in 15 minutes; 0: never. */
  SIGN_IN_CAPTCHA_AFTER_FAILURES: z.coerce.number().int().min(0).default(3),
});

export type Env = z.infer<typeof envSchema>;

export type Config = Env & {
  /** Allowed `return_to` origins and path prefixes, always including the app itself. */
  allowedReturnUrls: URL[];
  /** Where browsers reach the identity service (KRATOS_BROWSER_URL, else KRATOS_PUBLIC_URL). */
  kratosBrowserUrl: string;
  /** Origins of the configured social providers' authorize pages and pictures (OIDC_PROVIDER_ORIGINS). */
  oidcProviderOrigins: string[];
  /** The origin uploaded avatars load from (AVATAR_STORAGE_URL, else BACKEND_URL): the CSP's img-src names it. */
  avatarOrigin: string;
  /** BRAND_NAME, BRAND_LOGO_URL and BRAND_ACCENT_COLOR, as the views take them. */
  brand: { name: string; logoUrl: string; accentColor?: string };
  isProduction: boolean;
};

export class ConfigError extends Error {}

const fail = (variable: string, message: string): never => {
  throw new ConfigError(`Invalid configuration: ${variable}: ${message}`);
};

/**
 * Parses the environment. Throws ConfigError whose message is one line naming every bad variable
 * (main.ts prints it and exits 1, without a stack). An empty variable counts as unset.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const message = issue.message.replace(/\s+/g, ' ');
      return `${String(issue.path[0] ?? 'environment')}: ${message}`;
    });
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const values = parsed.data;
  const isProduction = values.NODE_ENV === 'production';
  if (isProduction && values.SESSION_SECRET === DEV_SESSION_SECRET) {
    fail('SESSION_SECRET', 'the development default is refused in production; set a random secret of 32+ characters');
  }
  if (isProduction && values.ENABLE_TEST_ROUTES) {
    fail('ENABLE_TEST_ROUTES', 'test routes are refused in production');
  }
  if (trustsEveryProxy(values.TRUST_PROXY)) {
    const why =
      'trusts every X-Forwarded-For hop, so any client can choose the IP the rate limits see; give the hop count (e.g. 1) or the proxy addresses/subnets';
    if (isProduction) fail('TRUST_PROXY', `${String(values.TRUST_PROXY)} is refused in production: it ${why}`);
    process.emitWarning(`TRUST_PROXY=${String(values.TRUST_PROXY)} ${why}. Production refuses it.`, { code: 'ACCOUNTS_TRUST_PROXY' });
  }
  if (values.SOCKET_URL && !values.REDIS_URL) {
    fail('SOCKET_URL', 'an external socket host is reached through Redis: set REDIS_URL too');
  }
  if (!values.LANGUAGES.includes(values.DEFAULT_LANGUAGE)) {
    fail('DEFAULT_LANGUAGE', `must be one of LANGUAGES (${values.LANGUAGES.join(', ')})`);
  }
  const publicHost = new URL(values.PUBLIC_URL).hostname.toLowerCase();
  const cookieDomain = values.AUTH_COOKIE_DOMAIN?.replace(/^\./, '').toLowerCase();
  if (cookieDomain && publicHost !== cookieDomain && !publicHost.endsWith(`.${cookieDomain}`)) {
    // Browsers drop a cookie whose Domain does not cover the host that sets it.
    fail('AUTH_COOKIE_DOMAIN', `${cookieDomain} does not cover PUBLIC_URL's host ${publicHost}`);
  }
  const allowedReturnUrls = [values.PUBLIC_URL, ...values.ALLOWED_RETURN_URLS].map((value) => {
    try {
      return new URL(value);
    } catch {
      return fail('ALLOWED_RETURN_URLS', `not a URL: ${value}`);
    }
  });
  const oidcProviderOrigins = values.OIDC_PROVIDER_ORIGINS.map((value) => {
    try {
      const url = new URL(value);
      if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
    } catch {
      // reported below
    }
    return fail('OIDC_PROVIDER_ORIGINS', `not an http(s) origin: ${value}`);
  });
  return {
    ...values,
    allowedReturnUrls,
    oidcProviderOrigins,
    avatarOrigin: new URL(values.AVATAR_STORAGE_URL ?? values.BACKEND_URL).origin,
    brand: { name: values.BRAND_NAME, logoUrl: values.BRAND_LOGO_URL, ...(values.BRAND_ACCENT_COLOR ? { accentColor: values.BRAND_ACCENT_COLOR } : {}) },
    kratosBrowserUrl: values.KRATOS_BROWSER_URL ?? values.KRATOS_PUBLIC_URL,
    isProduction,
  };
}
