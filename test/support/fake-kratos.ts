// A scripted Kratos for the answers the embedded identity service cannot produce (no verification-
// required login, no OIDC provider, no rate limit, no internal error). It speaks the contract's JSON
// variant over real HTTP, so the app is exercised exactly as with Kratos; answers are chosen by the
// submitted identifier or provider. Flow bodies come from test/fixtures/flows.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/flows/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

export const GOOGLE_AUTHORIZE = 'https://accounts.google.com/o/oauth2/v2/auth?client_id=test&state=abc';

type Scripted = { status: number; body: unknown; setCookie?: string[] };

/** What the fake answers to a login submit, by identifier or provider. */
export const SCRIPT: Record<string, () => Scripted> = {
  'unverified@example.com': () => ({ status: 400, body: fixture('login-unverified') }),
  'limited@example.com': () => ({ status: 429, body: { error: { code: 429, status: 'Too Many Requests', message: 'rate limit exceeded' } } }),
  'boom@example.com': () => ({
    status: 500,
    body: { error: { code: 500, status: 'Internal Server Error', reason: 'database is down', message: 'An internal server error occurred' } },
  }),
  'provider:google': () => ({
    status: 422,
    body: {
      error: {
        id: 'browser_location_change_required',
        code: 422,
        status: 'Unprocessable Entity',
        reason: `In order to complete this flow please redirect the browser to: ${GOOGLE_AUTHORIZE}`,
        message: 'browser location change required',
      },
      redirect_browser_to: GOOGLE_AUTHORIZE,
    },
    setCookie: ['ory_kratos_continuity=opaque; Path=/; Domain=kratos.example; Max-Age=600; HttpOnly; SameSite=Lax'],
  }),
};

function send(res: http.ServerResponse, answer: Scripted): void {
  res.statusCode = answer.status;
  res.setHeader('content-type', 'application/json');
  if (answer.setCookie) res.setHeader('set-cookie', answer.setCookie);
  res.end(JSON.stringify(answer.body));
}

async function readBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  try {
    return JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export async function startFakeKratos(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const login = fixture('login-fresh');
    if (url.pathname === '/self-service/login/browser' || url.pathname === '/self-service/login/flows') {
      return send(res, { status: 200, body: login, setCookie: ['csrf_token_fake=c; Path=/; Domain=kratos.example; Max-Age=31536000; HttpOnly; SameSite=Lax'] });
    }
    if (url.pathname === '/self-service/login' && req.method === 'POST') {
      const body = await readBody(req);
      const key = body.provider ? `provider:${String(body.provider)}` : String(body.identifier ?? '');
      const scripted = SCRIPT[key];
      if (scripted) return send(res, scripted());
      return send(res, { status: 400, body: fixture('login-wrong-password') });
    }
    if (url.pathname === '/sessions/whoami')
      return send(res, { status: 401, body: { error: { code: 401, status: 'Unauthorized', message: 'The request could not be authorized' } } });
    send(res, { status: 404, body: { error: { code: 404, status: 'Not Found', message: 'Unable to locate the resource' } } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The real app pointed at the fake Kratos. */
export async function startAppOnFake(kratosUrl: string): Promise<{ appUrl: string; close(): Promise<void> }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ NODE_ENV: 'test', PUBLIC_URL: appUrl, KRATOS_PUBLIC_URL: kratosUrl, KRATOS_ADMIN_URL: kratosUrl, LOG_LEVEL: 'silent' });
  server.on('request', await createApp(config, pino({ level: 'silent' })));
  return {
    appUrl,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
