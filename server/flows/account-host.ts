/**
 * ACCOUNT_HOST (spec §2): the sign-in, sign-up, invitation and resend-verification pages also answer on
 * the account host. Any other path requested on that host is sent to the same path on PUBLIC_URL
 * (303 for GET/HEAD, 307 otherwise so a POST stays a POST). Static assets and health checks are served
 * before routers and are not affected.
 *
 *   accountHostRouting(config) → middleware (a no-op when ACCOUNT_HOST is empty or is PUBLIC_URL's host)
 */
import type { RequestHandler } from 'express';
import { ACCOUNT_HOST_PATHS } from '../../core/routes.ts';
import type { Config } from '../config.ts';

export { ACCOUNT_HOST_PATHS };

/**
 * `base`'s origin with `pathAndQuery` as its path (and query): never another host. A path such as
 * `//evil.example/x` or `/\evil.example/x` (browsers read `\` as `/`) would make `new URL(path, base)`
 * take `evil.example` as the authority, so leading slashes and backslashes collapse to one `/` and the
 * path is set as a path.
 */
export function urlOnOrigin(base: string | URL, pathAndQuery: string): URL {
  const url = new URL(new URL(base).origin);
  const queryAt = pathAndQuery.indexOf('?');
  const pathPart = queryAt === -1 ? pathAndQuery : pathAndQuery.slice(0, queryAt);
  url.pathname = `/${pathPart.replace(/^[/\\]+/, '')}`;
  if (queryAt !== -1) url.search = pathAndQuery.slice(queryAt);
  return url;
}

function normaliseHost(value: string): string {
  return value.trim().toLowerCase().replace(/\.$/, '');
}

export function accountHostRouting(config: Pick<Config, 'ACCOUNT_HOST' | 'PUBLIC_URL'>): RequestHandler {
  const accountHost = normaliseHost(config.ACCOUNT_HOST.replace(/^https?:\/\//i, '').replace(/\/.*$/, ''));
  const publicUrl = new URL(config.PUBLIC_URL);
  const allowed = new Set(ACCOUNT_HOST_PATHS);
  const withPort = accountHost.includes(':');
  if (!accountHost || accountHost === normaliseHost(withPort ? publicUrl.host : publicUrl.hostname)) {
    return (_req, _res, next) => next();
  }
  return (req, res, next) => {
    const host = normaliseHost(withPort ? String(req.headers.host ?? '') : (req.hostname ?? ''));
    if (host !== accountHost) return next();
    const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    if (allowed.has(path)) return next();
    const target = urlOnOrigin(publicUrl, req.originalUrl).href;
    res.redirect(req.method === 'GET' || req.method === 'HEAD' ? 303 : 307, target);
  };
}
