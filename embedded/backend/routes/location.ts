// user/user-location: the caller's country and region from trusted proxy headers, callable from the
// browser with credentials by the configured app origins. A stand-in helper, PUT /api/admin/user-location
// (admin key), fixes the answer for one caller address (the first X-Forwarded-For entry, as the app sends
// it when it asks for a visitor, else the connection's): tests and demos place visitors anywhere.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import { ApiError, badRequest } from '../errors.ts';
import type { AppOptions } from '../options.ts';
import type { Route } from './route.ts';

const PATH = '/api/user/user-location';
const UNKNOWN = { countryCode: 'unknown', regionName: 'unknown' };

function applyCors(o: AppOptions, req: Request, res: Response): void {
  const origin = req.get('origin');
  res.vary('Origin');
  if (origin && o.corsOrigins.includes(origin)) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
}

type Location = { countryCode: string; regionName: string };

const callerAddress = (req: Request) => (req.get('x-forwarded-for') ?? '').split(',')[0]!.trim() || (req.socket.remoteAddress ?? '');

const placedBody = z.object({
  ip: z.string().min(1).max(64),
  countryCode: z.string().regex(/^[A-Za-z]{2}$/),
  regionName: z.string().max(100).default('unknown'),
});

function requireKey(o: AppOptions, req: Request): void {
  if (!o.adminApiKey) throw new ApiError(403, 'admin_disabled', 'No admin key is configured for this backend');
  const digest = (value: string) => createHash('sha256').update(value).digest();
  if (!timingSafeEqual(digest(req.get('authorization') ?? ''), digest(`Bearer ${o.adminApiKey}`)))
    throw new ApiError(401, 'unauthorized', 'The admin key is missing or wrong');
}

function readLocation(o: AppOptions, req: Request, placed: Map<string, Location>): Location {
  const fixed = placed.get(callerAddress(req));
  if (fixed) return fixed;
  if (!o.locationHeaders) return UNKNOWN;
  const country = (req.get(o.locationHeaders.country) ?? '').trim();
  if (!/^[A-Za-z]{2}$/.test(country)) return UNKNOWN;
  let region = o.locationHeaders.region ? (req.get(o.locationHeaders.region) ?? '').trim() : '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this check rejects
  if (region.length > 100 || /[\u0000-\u001f\u007f<>]/.test(region)) region = '';
  return { countryCode: country.toUpperCase(), regionName: region || 'unknown' };
}

export function locationRoutes(o: AppOptions): Route[] {
  const placed = new Map<string, Location>();
  return [
    {
      method: 'get',
      path: PATH,
      doc: {
        tag: 'user',
        summary: "Caller's location",
        description:
          "No token needed (browser calls it with credentials; CORS with credentials for the configured app origins, preflight supported). countryCode comes from the configured trusted proxy header (2 letters, upper-cased), regionName from the region header; otherwise both are the string 'unknown'.",
        responses: { 200: { description: 'Location', schema: z.object({ countryCode: z.string(), regionName: z.string() }) } },
      },
      handler(req, res) {
        applyCors(o, req, res);
        return readLocation(o, req, placed);
      },
    },
    {
      method: 'put',
      path: '/api/admin/user-location',
      doc: {
        tag: 'admin',
        security: 'adminKey',
        summary: 'Fix the location answered to one caller address (stand-in helper)',
        description:
          'user/user-location then answers this countryCode and regionName to callers from `ip` (first X-Forwarded-For entry, else the connection address).',
        body: { schema: placedBody, required: true },
        responses: { 200: { description: 'Placed', schema: placedBody }, 400: { description: 'Bad body' } },
      },
      handler(req) {
        requireKey(o, req);
        const body = placedBody.safeParse(req.body);
        if (!body.success) throw badRequest('bad_request', 'ip, countryCode (2 letters) and regionName are expected');
        placed.set(body.data.ip, { countryCode: body.data.countryCode.toUpperCase(), regionName: body.data.regionName });
        return body.data;
      },
    },
  ];
}

/** The CORS preflight; mounted before the generic OPTIONS answer of every route. */
export function mountLocationPreflight(app: Express, o: AppOptions): void {
  app.options(PATH, (req, res) => {
    applyCors(o, req, res);
    res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    res.setHeader('Access-Control-Max-Age', '600');
    res.setHeader('Allow', 'GET, HEAD, OPTIONS');
    res.status(204).end();
  });
}
