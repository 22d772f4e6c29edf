// The product as the browser benches see it (scripts/bench-pages.ts, scripts/bench-lighthouse.ts): the
// BUILT app (NODE_ENV=production) and the embedded identity service and backend as child processes
// on free ports with a throw-away data folder, plus a second app that shows the cookie banner
// (analytics configured, consent asked, nobody's location known).
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright';
import { startNode, stopAll, waitFor } from './child-processes.ts';
import { freePort } from './ory/process.ts';
import { Browser as CookieJar, formAction, hiddenValue } from '../test/support/http.ts';

export type Product = { appUrl: string; consentUrl: string; adminUrl: string; stop(): void };
export type SignedIn = Awaited<ReturnType<BrowserContext['storageState']>>;

const PASSWORD = 'Violet-Harbour-Quartz-93';

/** The stand-ins and two apps (the second one shows the cookie banner); stop() ends them and removes their data. */
export async function startProduct(dist: string): Promise<Product> {
  // Each product its own processes and data, so a bench can run two builds side by side (scripts/bench-layout.ts).
  const children: ChildProcess[] = [];
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-pages-'));
  const stopProduct = (): void => {
    stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  };
  const [appPort, consentPort, publicPort, adminPort, backendPort] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const appUrl = `http://127.0.0.1:${appPort}`;
  const consentUrl = `http://127.0.0.1:${consentPort}`;
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const backendUrl = `http://127.0.0.1:${backendPort}`;
  const identity = startNode(children, 'identity', ['embedded/identity/main.ts'], {
    APP_URL: appUrl,
    IDENTITY_HOST: '127.0.0.1',
    IDENTITY_PUBLIC_PORT: String(publicPort),
    IDENTITY_ADMIN_PORT: String(adminPort),
    IDENTITY_PUBLIC_URL: publicUrl,
    IDENTITY_ADMIN_URL: adminUrl,
    IDENTITY_DATA_DIR: dataDir,
  });
  const backend = startNode(children, 'backend', ['embedded/backend/main.ts'], {
    BACKEND_HOST: '127.0.0.1',
    BACKEND_PORT: String(backendPort),
    BACKEND_DATA_DIR: path.join(dataDir, 'backend'),
    IDENTITY_PUBLIC_URL: publicUrl,
    IDENTITY_ADMIN_URL: adminUrl,
  });
  await Promise.all([waitFor(publicUrl, identity), waitFor(backendUrl, backend)]).catch((error: unknown) => {
    stopProduct();
    throw error;
  });
  const appEnv = (port: number, url: string, extra: Record<string, string> = {}) => ({
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: url,
    ASSETS_DIR: path.join(dist, 'public'),
    KRATOS_PUBLIC_URL: publicUrl,
    KRATOS_ADMIN_URL: adminUrl,
    BACKEND_URL: backendUrl,
    SESSION_SECRET: 'bench-pages-only-secret-0123456789abcdef0123',
    LOG_LEVEL: 'silent',
    ...extra,
  });
  const app = startNode(children, 'app', [path.join(dist, 'server.js')], appEnv(appPort, appUrl));
  // Analytics configured, consent asked, nobody's location known: the banner shows on every page.
  const consent = startNode(
    children,
    'app (cookie banner)',
    [path.join(dist, 'server.js')],
    appEnv(consentPort, consentUrl, {
      GTM_ID: 'GTM-BENCH',
      GTM_SCRIPT_URL: 'http://127.0.0.1:9/gtm.js',
      LOG_SERVICE_URL: 'http://127.0.0.1:9/log',
      CONSENT_DEFAULT: 'ask',
      USER_LOCATION_LOOKUP: 'false',
    }),
  );
  await Promise.all([waitFor(`${appUrl}/readyz`, app, true), waitFor(`${consentUrl}/readyz`, consent, true)]).catch((error: unknown) => {
    // An app that cannot start (a wrong --dist) must not leave the stand-ins running behind the bench.
    stopProduct();
    throw error;
  });
  return { appUrl, consentUrl, adminUrl, stop: stopProduct };
}

/** A verified identity with a password, through the admin API; returns its address. */
async function createIdentity(adminUrl: string, prefix: string): Promise<string> {
  const email = `${prefix}-${Date.now()}@example.com`;
  const response = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: 'Ada' },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
    }),
  });
  if (response.status !== 201) throw new Error(`creating an identity: ${response.status} ${await response.text()}`);
  return email;
}

/** A verified identity through the admin API, signed in once through the page; its cookies serve every signed-in run. */
export async function signedInState(browser: Browser, appUrl: string, adminUrl: string): Promise<SignedIn> {
  const email = await createIdentity(adminUrl, 'bench-pages');
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${appUrl}/sign-in`);
  await page.locator('#field-identifier').fill(email);
  await page.locator('#field-password').fill(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/sign-in')), page.locator('button[name="method"][value="password"]').click()]);
  const state = await context.storageState();
  await context.close();
  return state;
}

/**
 * The screen recovery leads to (/forgot-password/reset?flow=…) and the cookies of the session it opened:
 * a verified identity goes through /forgot-password with the code the courier mailed, over HTTP.
 */
export async function recoveredState(appUrl: string, adminUrl: string): Promise<{ path: string; state: SignedIn }> {
  const email = await createIdentity(adminUrl, 'bench-pages-recovery');
  const jar = new CookieJar(appUrl);
  const step = async (page: { text: string; url: string }, form: Record<string, string>) => {
    const action = formAction(page.text, 'forgot-password-form') ?? page.url;
    const csrf = hiddenValue(page.text, 'csrf_token');
    if (!csrf) throw new Error(`recovery: no form at ${page.url}`);
    const answer = await jar.post(action, { csrf_token: csrf, method: 'code', ...form });
    if (answer.status !== 303 || !answer.location) throw new Error(`recovery: ${answer.status} at ${action}`);
    return answer.location;
  };
  const sent = await step(await jar.follow('/forgot-password'), { email });
  const codePage = await jar.follow(sent);
  const deadline = Date.now() + 10_000;
  let code: string | undefined;
  while (!code && Date.now() < deadline) {
    const messages = (await (await fetch(`${adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`)).json()) as { body: string }[];
    code = messages.map((message) => /\b(\d{6})\b/.exec(message.body)?.[1]).find(Boolean);
    if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!code) throw new Error('recovery: no code mailed');
  const resetPath = await step(codePage, { code });
  const cookies = [...jar.cookies].map(([name, value]) => ({
    name,
    value,
    domain: new URL(appUrl).hostname,
    path: '/',
    expires: -1,
    httpOnly: true,
    secure: false,
    sameSite: 'Lax' as const,
  }));
  return { path: resetPath, state: { cookies, origins: [] } };
}
