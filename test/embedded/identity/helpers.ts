// Test helpers: start the identity service cheaply, a cookie jar that forwards Cookie and collects
// Set-Cookie as a server-side app would, @ory/client APIs on a recording axios instance, and a tiny
// browser (fetch with manual redirects) for the plain form-post variant.
import axios, { AxiosError, type AxiosInstance, type AxiosResponse } from 'axios';
import { Configuration, CourierApi, FrontendApi, IdentityApi } from '@ory/client';
import { merge } from '../../../embedded/identity/config.ts';
import { startIdentity, type DeepPartial, type IdentityConfig, type StartIdentityOptions } from '../../../embedded/identity/index.ts';

export const APP = 'http://app.test';

/**
 * The stand-in on ephemeral ports with cheap hashing. Its login hooks are Kratos's default (none) unless
 * a test sets them: these suites check the contract's flows with identities made through the admin API,
 * and require_verified_address (on in the product's configuration) has its own tests.
 */
export async function startTestIdentity(o: StartIdentityOptions = {}) {
  const noLoginHooks: DeepPartial<IdentityConfig> = { selfservice: { flows: { login: { after: { hooks: [] } } } } };
  return startIdentity({
    publicPort: 0,
    adminPort: 0,
    database: ':memory:',
    argon2: { memory: 64, iterations: 1, parallelism: 1 },
    appUrl: APP,
    ...o,
    config: merge(noLoginHooks, o.config),
  });
}

export class CookieJar {
  cookies = new Map<string, string>();

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  absorb(setCookie: string[] | string | undefined): void {
    const list = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
    for (const sc of list) {
      const [pair, ...attrs] = sc.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      const maxAge = attrs.map((a) => a.trim()).find((a) => /^max-age=/i.test(a));
      const expires = attrs.map((a) => a.trim()).find((a) => /^expires=/i.test(a));
      const gone = (maxAge && Number(maxAge.split('=')[1]) <= 0) || (expires && new Date(expires.slice(8)).getTime() < Date.now());
      if (gone || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(prefix: string): string | undefined {
    for (const [k, v] of this.cookies) if (k.startsWith(prefix)) return v;
    return undefined;
  }
}

export interface Recorded {
  method: string;
  url: string;
  status: number;
  data: unknown;
  contentType: string;
}

/** Every response seen by the SDK clients (for the OpenAPI validation test). */
export const recorded: Recorded[] = [];

function recordingAxios(): AxiosInstance {
  const inst = axios.create();
  const rec = (r: AxiosResponse | undefined) => {
    if (!r) return;
    const url = r.request?.res?.responseUrl ?? r.config.url ?? '';
    recorded.push({
      method: String(r.config.method ?? 'get').toUpperCase(),
      url,
      status: r.status,
      data: r.data,
      contentType: String(r.headers['content-type'] ?? ''),
    });
  };
  inst.interceptors.response.use(
    (r) => {
      rec(r);
      return r;
    },
    (e: AxiosError) => {
      rec(e.response);
      return Promise.reject(e);
    },
  );
  return inst;
}

export function sdk(publicUrl: string, adminUrl: string, apiKey?: string) {
  const ax = recordingAxios();
  const frontend = new FrontendApi(new Configuration({ basePath: publicUrl }), undefined, ax);
  const adminConfig = new Configuration({ basePath: adminUrl, accessToken: apiKey });
  return {
    frontend,
    identity: new IdentityApi(adminConfig, undefined, ax),
    courier: new CourierApi(adminConfig, undefined, ax),
  };
}

export interface Res<T = any> {
  status: number;
  data: T;
  headers: Record<string, any>;
}

/** Awaits an SDK call; 4xx/5xx answers are returned (not thrown) and Set-Cookie goes into the jar. */
export async function call<T = any>(jar: CookieJar | undefined, p: Promise<AxiosResponse<T>>): Promise<Res<any>> {
  try {
    const r = await p;
    jar?.absorb(r.headers['set-cookie']);
    return { status: r.status, data: r.data, headers: r.headers };
  } catch (e) {
    const r = (e as AxiosError).response;
    if (!r) throw e;
    jar?.absorb(r.headers['set-cookie'] as string[] | undefined);
    return { status: r.status, data: r.data, headers: r.headers };
  }
}

export function node(flow: any, name: string, type?: string): any {
  return flow.ui.nodes.find((n: any) => n.attributes.name === name && (!type || n.attributes.type === type));
}

export const csrfOf = (flow: any): string => node(flow, 'csrf_token').attributes.value;

export async function latestMail(adminUrl: string, to: string, apiKey?: string): Promise<any> {
  const r = await fetch(`${adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(to)}`, {
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  });
  const list = (await r.json()) as any[];
  return list[0];
}

export const codeIn = (body: string): string => /\b(\d{6})\b/.exec(body)![1]!;

/** A browser: form posts and navigations with manual redirects and a cookie jar. */
export class Browser {
  jar = new CookieJar();

  async get(url: string, accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'): Promise<Response> {
    const r = await fetch(url, { redirect: 'manual', headers: { accept, cookie: this.jar.header() } });
    this.jar.absorb(r.headers.getSetCookie());
    return r;
  }

  /** The app's server fetching the flow JSON with the browser's cookies (to render the form). */
  async flowJson(url: string): Promise<{ status: number; data: any }> {
    const r = await this.get(url, 'application/json');
    const data = await r.json();
    recorded.push({ method: 'GET', url, status: r.status, data, contentType: r.headers.get('content-type') ?? '' });
    return { status: r.status, data };
  }

  async post(url: string, fields: Record<string, string>): Promise<Response> {
    const r = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { accept: 'text/html,application/xhtml+xml', 'content-type': 'application/x-www-form-urlencoded', cookie: this.jar.header() },
      body: new URLSearchParams(fields).toString(),
    });
    this.jar.absorb(r.headers.getSetCookie());
    return r;
  }
}

export const flowIdOf = (location: string | null): string => new URL(location!).searchParams.get('flow')!;
