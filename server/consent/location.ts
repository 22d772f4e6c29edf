/**
 * Where a visitor is, for the consent default (spec §4, §7): a trusted CDN header named in config
 * (GEO_COUNTRY_HEADER / GEO_REGION_HEADER) when set, else the backend's `user/user-location`, asked with
 * the visitor's address in X-Forwarded-For (the backend locates the caller), within
 * USER_LOCATION_TIMEOUT_MS. An answer is kept per address for 10 minutes, so a visitor's pages cost one
 * call; a failed or late call counts as "unknown" (the configured default then decides), never an error.
 */
import type { Request } from 'express';
import type { VisitorLocation } from '../../core/consent.ts';
import type { Config } from '../config.ts';

const CACHE_TTL_MS = 10 * 60 * 1000;
const CACHE_MAX = 10_000;
type Cached = { location: VisitorLocation | undefined; until: number };
const cache = new Map<string, Cached>();

const clean = (value: unknown, max: number): string | undefined =>
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  typeof value === 'string' && value.length > 0 && value.length <= max && !/[\u0000-\u001f\u007f<>"]/.test(value) ? value.trim() : undefined;

/** From the trusted CDN headers; undefined when none is configured. */
export function headerLocation(req: Request, config: Config): VisitorLocation | undefined {
  if (!config.GEO_COUNTRY_HEADER) return undefined;
  return {
    countryCode: clean(req.get(config.GEO_COUNTRY_HEADER), 2),
    regionName: config.GEO_REGION_HEADER ? clean(req.get(config.GEO_REGION_HEADER), 100) : undefined,
  };
}

/** What is already known for this visitor without waiting (header or cached answer). */
export function knownLocation(req: Request, config: Config): VisitorLocation | undefined {
  if (config.GEO_COUNTRY_HEADER) return headerLocation(req, config);
  const cached = cache.get(cacheKey(config, req.ip ?? ''));
  return cached && cached.until > Date.now() ? cached.location : undefined;
}

/** The visitor's location, asking the backend when no header is configured (and the lookup is on). */
export async function visitorLocation(req: Request, config: Config): Promise<VisitorLocation | undefined> {
  if (config.GEO_COUNTRY_HEADER) return headerLocation(req, config);
  if (!config.USER_LOCATION_LOOKUP) return undefined;
  const ip = req.ip ?? '';
  const key = cacheKey(config, ip);
  const cached = cache.get(key);
  if (cached && cached.until > Date.now()) return cached.location;
  const location = await askBackend(config, ip, req);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
  cache.set(key, { location, until: Date.now() + CACHE_TTL_MS });
  return location;
}

/** Per backend too: one process may serve several apps (tests). */
const cacheKey = (config: Config, ip: string) => `${config.BACKEND_URL} ${ip}`;

async function askBackend(config: Config, ip: string, req: Request): Promise<VisitorLocation | undefined> {
  const url = new URL('api/user/user-location', `${config.BACKEND_URL.replace(/\/+$/, '')}/`);
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json', ...(ip ? { 'x-forwarded-for': ip } : {}) },
      signal: AbortSignal.timeout(config.USER_LOCATION_TIMEOUT_MS),
      redirect: 'manual',
    });
    if (!response.ok) throw new Error(`status ${response.status}`);
    const body = (await response.json()) as { countryCode?: unknown; regionName?: unknown };
    return { countryCode: clean(body.countryCode, 2), regionName: clean(body.regionName, 100) };
  } catch (error) {
    req.log?.warn(
      { reason: (error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message },
      'user-location unavailable: consent default applies',
    );
    return undefined;
  }
}

/** Tests: forget what was learnt. */
export function clearLocationCache(): void {
  cache.clear();
}
