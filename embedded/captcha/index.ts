// A reCAPTCHA v2 stand-in for npm start and the tests (decision 170; contract §6): Google's siteverify
// (POST /recaptcha/api/siteverify, form `secret`, `response`, `remoteip`; JSON `{ success, challenge_ts,
// hostname, "error-codes" }`), its api.js and widget frame (./widget.ts), and the JS-off fallback page.
//
// Behaviour:
// - Google's test secret (6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe) passes every non-empty response, as
//   Google's test keys do (the FAQ: "all verification requests will pass").
// - Any other secret: a token this stand-in issued (widget or fallback), within 2 minutes, once;
//   a second use is `timeout-or-duplicate`, anything else `invalid-input-response`.
// - A missing secret or response: `missing-input-secret` / `missing-input-response`.
// - `fail(true)` (or POST /__stand-in/mode `mode=fail`) makes every verification fail until `fail(false)`.
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiScript, anchorPage, fallbackPage } from './widget.ts';

export const TEST_SITE_KEY = '6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI';
export const TEST_SECRET_KEY = '6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe';
const TOKEN_TTL_MS = 2 * 60 * 1000;
const BODY_LIMIT = 16 * 1024;

export type CaptchaStandInOptions = { port?: number; host?: string; now?: () => number };
export type Verification = { secret: string; response: string; remoteip?: string; success: boolean; errorCodes: string[] };

export type CaptchaStandIn = {
  url: string;
  /** What the app's RECAPTCHA_SCRIPT_URL and RECAPTCHA_VERIFY_URL should be. */
  scriptUrl: string;
  verifyUrl: string;
  /** A token that verifies once, as if the widget had been solved. */
  issueToken(): string;
  /** Every verification from now on fails (true) or follows the rules again (false). */
  fail(on: boolean): void;
  /** The verifications received, oldest first. */
  verifications: Verification[];
  close(): Promise<void>;
};

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > BODY_LIMIT) throw new Error('body too large');
  }
  return new URLSearchParams(body);
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
}

export async function startCaptchaStandIn(options: CaptchaStandInOptions = {}): Promise<CaptchaStandIn> {
  const now = options.now ?? Date.now;
  const issued = new Map<string, { at: number; used: boolean }>();
  const verifications: Verification[] = [];
  let failing = false;
  let origin = '';

  const issueToken = () => {
    const token = `stand-in-${randomBytes(24).toString('base64url')}`;
    issued.set(token, { at: now(), used: false });
    return token;
  };

  function verify(secret: string, response: string): string[] {
    if (!secret) return ['missing-input-secret'];
    if (!response) return ['missing-input-response'];
    if (failing) return ['invalid-input-response'];
    if (secret === TEST_SECRET_KEY) return [];
    const token = issued.get(response);
    if (!token) return ['invalid-input-response'];
    if (token.used || now() - token.at > TOKEN_TTL_MS) return ['timeout-or-duplicate'];
    token.used = true;
    return [];
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /recaptcha/api.js') return send(res, 200, 'text/javascript; charset=utf-8', apiScript(origin));
    if (route === 'GET /recaptcha/api2/anchor') return send(res, 200, 'text/html; charset=utf-8', anchorPage(url.searchParams.get('w') ?? '0'));
    if (route === 'POST /recaptcha/api2/token') return send(res, 200, 'application/json', JSON.stringify({ token: issueToken() }));
    if (route === 'GET /recaptcha/api/fallback') return send(res, 200, 'text/html; charset=utf-8', fallbackPage());
    if (route === 'POST /recaptcha/api/fallback') {
      const form = await readForm(req);
      return send(res, form.get('robot') ? 200 : 400, 'text/html; charset=utf-8', fallbackPage(form.get('robot') ? issueToken() : undefined));
    }
    if (route === 'POST /recaptcha/api/siteverify') {
      const form = await readForm(req);
      const secret = form.get('secret') ?? '';
      const response = form.get('response') ?? '';
      const errorCodes = verify(secret, response);
      const success = errorCodes.length === 0;
      verifications.push({ secret, response, remoteip: form.get('remoteip') ?? undefined, success, errorCodes });
      const answer = success ? { success, challenge_ts: new Date(now()).toISOString(), hostname: 'localhost' } : { success, 'error-codes': errorCodes };
      return send(res, 200, 'application/json', JSON.stringify(answer));
    }
    if (route === 'POST /__stand-in/mode') {
      failing = (await readForm(req)).get('mode') === 'fail';
      return send(res, 200, 'application/json', JSON.stringify({ failing }));
    }
    send(res, 404, 'text/plain', 'not found');
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => send(res, 400, 'text/plain', 'bad request'));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${address.port}`;
  return {
    url: origin,
    scriptUrl: `${origin}/recaptcha/api.js`,
    verifyUrl: `${origin}/recaptcha/api/siteverify`,
    issueToken,
    fail: (on) => void (failing = on),
    verifications,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
