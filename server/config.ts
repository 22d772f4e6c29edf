import { z } from 'zod';

// Development-only secret: production refuses to start with it (see loadConfig).
export const DEV_SESSION_SECRET = 'dev-only-session-secret-change-me-0123456789';

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

const optionalUrl = z.preprocess((value) => (value === '' ? undefined : value), z.url().optional());

export const SUPPORTED_LANGUAGES = ['en', 'vi', 'fr', 'pt', 'es'] as const;

/** Every environment variable the app reads. The README's configuration table mirrors this schema. */
export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url().default('http://localhost:3000'),
  ACCOUNT_HOST: z.string().default(''),
  KRATOS_PUBLIC_URL: z.url().default('http://localhost:4433'),
  KRATOS_ADMIN_URL: z.url().default('http://localhost:4434'),
  KRATOS_ADMIN_API_KEY: z.string().default(''),
  HYDRA_ADMIN_URL: optionalUrl,
  BACKEND_URL: z.url().default('http://localhost:4500'),
  DOCUMENT_APP_URL: optionalUrl,
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').default(DEV_SESSION_SECRET),
  REDIS_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LANGUAGES: list(SUPPORTED_LANGUAGES.join(',')).pipe(z.array(z.enum(SUPPORTED_LANGUAGES)).min(1)),
  DEFAULT_LANGUAGE: z.enum(SUPPORTED_LANGUAGES).default('en'),
  ALLOWED_RETURN_URLS: list(''),
  ASSETS_DIR: z.string().default('dist/public'),
  TRUST_PROXY: z.string().default('loopback'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  ENABLE_TEST_ROUTES: z
    .enum(['true', 'false', ''])
    .default('')
    .transform((value) => value === 'true'),
});

export type Env = z.infer<typeof envSchema>;

export type Config = Env & {
  /** Allowed `return_to` origins and path prefixes, always including the app itself. */
  allowedReturnUrls: URL[];
  isProduction: boolean;
};

export class ConfigError extends Error {}

/** Parses the environment; throws ConfigError with one line that names the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable}: ${issue.message}`);
  }
  const values = parsed.data;
  const isProduction = values.NODE_ENV === 'production';
  if (isProduction && values.SESSION_SECRET === DEV_SESSION_SECRET) {
    throw new ConfigError('Invalid configuration: SESSION_SECRET: the development default is refused in production');
  }
  if (isProduction && values.ENABLE_TEST_ROUTES) {
    throw new ConfigError('Invalid configuration: ENABLE_TEST_ROUTES: test routes are refused in production');
  }
  const allowedReturnUrls = [values.PUBLIC_URL, ...values.ALLOWED_RETURN_URLS].map((value) => {
    try {
      return new URL(value);
    } catch {
      throw new ConfigError(`Invalid configuration: ALLOWED_RETURN_URLS: not a URL: ${value}`);
    }
  });
  return { ...values, allowedReturnUrls, isProduction };
}
