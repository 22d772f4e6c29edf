import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEV_SESSION_SECRET, envSchema, loadConfig } from '../../../server/config.ts';

const PROD = { NODE_ENV: 'production', SESSION_SECRET: 'a-real-production-secret-of-40-characters!' };

function errorOf(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected loadConfig to refuse this environment');
}

describe('loadConfig', () => {
  it('runs on a bare machine with nothing set', () => {
    const config = loadConfig({});
    expect(config.NODE_ENV).toBe('development');
    expect(config.PORT).toBe(3000);
    expect(config.PUBLIC_URL).toBe('http://localhost:3000');
    expect(config.KRATOS_PUBLIC_URL).toBe('http://localhost:4433');
    expect(config.kratosBrowserUrl).toBe('http://localhost:4433');
    expect(config.BACKEND_URL).toBe('http://localhost:4500');
    expect(config.LANGUAGES).toEqual(['en', 'vi', 'fr', 'pt', 'es']);
    expect(config.DEFAULT_LANGUAGE).toBe('en');
    expect(config.SHUTDOWN_TIMEOUT_MS).toBe(10_000);
    expect(config.ENABLE_TEST_ROUTES).toBe(false);
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.isProduction).toBe(false);
    expect(config.allowedReturnUrls.map(String)).toEqual(['http://localhost:3000/']);
    expect(config.oidcProviderOrigins).toEqual([]);
  });

  it('parses numbers, lists, flags and the trust-proxy setting', () => {
    const config = loadConfig({
      PORT: '8080',
      LANGUAGES: 'en, fr',
      ALLOWED_RETURN_URLS: 'https://app.example.com, https://docs.example.com/editor',
      ENABLE_TEST_ROUTES: 'true',
      TRUST_PROXY: '2',
      KRATOS_BROWSER_URL: 'https://auth.example.com',
    });
    expect(config.PORT).toBe(8080);
    expect(config.LANGUAGES).toEqual(['en', 'fr']);
    expect(config.allowedReturnUrls.map(String)).toEqual(['http://localhost:3000/', 'https://app.example.com/', 'https://docs.example.com/editor']);
    expect(config.ENABLE_TEST_ROUTES).toBe(true);
    expect(config.TRUST_PROXY).toBe(2);
    expect(config.kratosBrowserUrl).toBe('https://auth.example.com');
    expect(loadConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toBe('loopback, 10.0.0.0/8');
    // Origins only: a path or a trailing slash is dropped.
    expect(loadConfig({ OIDC_PROVIDER_ORIGINS: 'https://accounts.google.com/, http://127.0.0.1:4601/x' }).oidcProviderOrigins).toEqual([
      'https://accounts.google.com',
      'http://127.0.0.1:4601',
    ]);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '', LOG_LEVEL: '' })).toMatchObject({ PORT: 3000, LOG_LEVEL: 'info' });
  });

  it('accepts a production configuration with a real secret', () => {
    const config = loadConfig({ ...PROD, REDIS_URL: 'redis://cache:6379' });
    expect(config.isProduction).toBe(true);
    expect(config.REDIS_URL).toBe('redis://cache:6379');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL'],
    [{ KRATOS_PUBLIC_URL: 'localhost:4433' }, 'KRATOS_PUBLIC_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ LANGUAGES: 'en,de' }, 'LANGUAGES'],
    [{ DEFAULT_LANGUAGE: 'de' }, 'DEFAULT_LANGUAGE'],
    [{ LANGUAGES: 'fr,vi' }, 'DEFAULT_LANGUAGE'],
    [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET'],
    [{ ENABLE_TEST_ROUTES: 'yes' }, 'ENABLE_TEST_ROUTES'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ REDIS_URL: 'cache:6379' }, 'REDIS_URL'],
    [{ ALLOWED_RETURN_URLS: 'https://ok.example, nope' }, 'ALLOWED_RETURN_URLS'],
    [{ SHUTDOWN_TIMEOUT_MS: '-1' }, 'SHUTDOWN_TIMEOUT_MS'],
    [{ OIDC_PROVIDER_ORIGINS: 'https://accounts.google.com, accounts.google.com' }, 'OIDC_PROVIDER_ORIGINS'],
    [{ OIDC_PROVIDER_ORIGINS: 'ftp://files.example.com' }, 'OIDC_PROVIDER_ORIGINS'],
  ])('refuses %o with one line naming %s', (env, variable) => {
    const error = errorOf(env as Record<string, string>);
    expect(error.message).toMatch(new RegExp(`^Invalid configuration: .*\\b${variable}: `));
    expect(error.message).not.toContain('\n');
  });

  it('names every bad variable at once, on one line', () => {
    const error = errorOf({ PORT: 'x', LOG_LEVEL: 'loud' });
    expect(error.message).toContain('PORT: ');
    expect(error.message).toContain('LOG_LEVEL: ');
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('production refuses the default secret and the test routes', () => {
    expect(errorOf({ NODE_ENV: 'production' }).message).toMatch(/^Invalid configuration: SESSION_SECRET: .*refused in production/);
    expect(errorOf({ NODE_ENV: 'production', SESSION_SECRET: DEV_SESSION_SECRET }).message).toContain('SESSION_SECRET');
    expect(errorOf({ ...PROD, ENABLE_TEST_ROUTES: 'true' }).message).toContain('ENABLE_TEST_ROUTES');
  });

  it('never echoes a secret in its error', () => {
    const error = errorOf({ SESSION_SECRET: 'tiny-secret' });
    expect(error.message).not.toContain('tiny-secret');
  });

  it('the README configuration table lists exactly the variables of the schema, with defaults', () => {
    const readme = readFileSync(path.resolve(import.meta.dirname, '../../../README.md'), 'utf8');
    // The app's table: the first table after the heading (the stand-ins' settings have their own below it).
    const section = readme.slice(readme.indexOf('\n## Configuration\n'));
    const table = /\n\| variable \| default \| meaning \|\n[\s\S]*?\n\n/.exec(section)![0];
    const rows = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]+) \|/gm)];
    expect(rows.map(([, name]) => name).sort()).toEqual(Object.keys(envSchema.shape).sort());
    for (const [, name, fallback] of rows) expect(fallback!.trim(), name).not.toBe('');
  });
});
