/**
 * The Ory SDK clients, built once per app (start-up work, never per request).
 *
 * `createOryClients(config)` → `{ frontend, identityAdmin }`:
 * - `frontend`: `FrontendApi` on KRATOS_PUBLIC_URL, for browser flows and whoami. Calls must forward the
 *   browser's Cookie header; use the helpers in `server/flows/kratos.ts`, which also relay Set-Cookie.
 * - `identityAdmin`: `IdentityApi` on KRATOS_ADMIN_URL with the admin API key as bearer (server-side only).
 *
 * Both share keep-alive agents and a lean transport (server/flows/transport.ts): every page render
 * costs at least one call to Kratos, and a fresh TCP connection per call, or axios's heavier stock
 * adapter, would dominate the CPU and latency of the hot path.
 */
import http from 'node:http';
import https from 'node:https';
import { Configuration, FrontendApi, FrontendApiAxiosParamCreator, IdentityApi } from '@ory/client';
import type { Config } from './config.ts';
import { sdkRequester } from './flows/sdk-requester.ts';
import { kratosAdapter } from './flows/transport.ts';

export type FrontendRequests = ReturnType<typeof FrontendApiAxiosParamCreator>;

export type OryClients = {
  frontend: FrontendApi;
  /**
   * The SDK's request builders for the public API: each returns `{ url, options }` (path, query,
   * headers, serialised JSON body) exactly as the SDK would send it. Flow helpers send these through
   * the transport without axios's per-call machinery (server/flows/kratos.ts).
   */
  frontendRequests: FrontendRequests;
  publicBasePath: string;
  identityAdmin: IdentityApi;
};

/**
 * Keep-alive agents towards Ory (this file's clients and server/oauth2.ts's). Past maxSockets, calls wait
 * in the agent for a free socket: ORY_MAX_SOCKETS (server/config.ts, where its value is argued) bounds the sockets one process opens to one service.
 */
export function oryAgentOptions(config: Pick<Config, 'ORY_MAX_SOCKETS'>) {
  return { keepAlive: true, maxSockets: config.ORY_MAX_SOCKETS, maxFreeSockets: Math.min(64, config.ORY_MAX_SOCKETS), scheduling: 'lifo' as const };
}

export function createOryClients(config: Config): OryClients {
  const baseOptions = {
    // The SDK builds the requests; kratosAdapter only carries them (see server/flows/transport.ts).
    adapter: kratosAdapter,
    httpAgent: new http.Agent(oryAgentOptions(config)),
    httpsAgent: new https.Agent(oryAgentOptions(config)),
    timeout: config.KRATOS_TIMEOUT_MS, // a total deadline: see server/flows/transport.ts
  };
  const publicBasePath = config.KRATOS_PUBLIC_URL.replace(/\/+$/, '');
  const publicConfiguration = new Configuration({ basePath: publicBasePath, baseOptions });
  const frontend = new FrontendApi(publicConfiguration, undefined, sdkRequester);
  const frontendRequests = FrontendApiAxiosParamCreator(publicConfiguration);
  const identityAdmin = new IdentityApi(
    new Configuration({
      basePath: config.KRATOS_ADMIN_URL.replace(/\/+$/, ''),
      accessToken: config.KRATOS_ADMIN_API_KEY || undefined,
      baseOptions,
    }),
    undefined,
    sdkRequester,
  );
  return { frontend, frontendRequests, publicBasePath, identityAdmin };
}

const clientsByConfig = new WeakMap<Config, OryClients>();

/** The clients of this app's configuration, created on first use and then reused. */
export function oryClients(config: Config): OryClients {
  let clients = clientsByConfig.get(config);
  if (!clients) {
    clients = createOryClients(config);
    clientsByConfig.set(config, clients);
  }
  return clients;
}
