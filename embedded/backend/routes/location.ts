// user/user-location: the caller's country and region from trusted proxy headers, callable from the
// browser with credentials by the configured app origins.
import type { Express, Request, Response } from 'express';
import { z } from 'zod';
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

function readLocation(o: AppOptions, req: Request): { countryCode: string; regionName: string } {
  if (!o.locationHeaders) return UNKNOWN;
  const country = (req.get(o.locationHeaders.country) ?? '').trim();
  if (!/^[A-Za-z]{2}$/.test(country)) return UNKNOWN;
  let region = o.locationHeaders.region ? (req.get(o.locationHeaders.region) ?? '').trim() : '';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this check rejects
  if (region.length > 100 || /[\u0000-\u001f\u007f<>]/.test(region)) region = '';
  return { countryCode: country.toUpperCase(), regionName: region || 'unknown' };
}

export function locationRoutes(o: AppOptions): Route[] {
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
        return readLocation(o, req);
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
