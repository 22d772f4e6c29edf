/**
 * What the Ory SDK's API classes (FrontendApi, IdentityApi, OAuth2Api) call to send a request, in place of
 * axios: each class takes it as its third constructor argument (server/ory.ts, server/oauth2.ts,
 * server/backend-client.ts). The SDK still builds every request (path, query, headers, JSON body) and
 * merges the configuration's base options into it; this hands the result to the transport those options
 * name (server/flows/transport.ts) and reads the answer as axios would for these JSON APIs.
 *
 * Why: the transport already does the sending, so axios only added its per-call machinery, and loading it
 * kept its code in every process's heap for nothing (decision 230). The server bundle resolves `axios` to
 * a module that throws if called (scripts/build.mjs): no class is made without this requester.
 *
 * Answers as axios gives them: `data` parsed from JSON when it is JSON, kept as text otherwise; a status
 * outside 2xx rejects (the transport's `settle`) with `error.response.data` parsed the same way.
 */
import type { FrontendApi } from '@ory/client';
import { kratosAdapter, type AdapterConfig, type AdapterResponse } from './transport.ts';

type SdkRequest = AdapterConfig & { adapter?: (config: AdapterConfig) => Promise<AdapterResponse> };

function parsed(data: unknown): unknown {
  if (typeof data !== 'string' || data === '') return data;
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

async function request(config: SdkRequest) {
  const send = config.adapter ?? kratosAdapter;
  try {
    const response = await send(config);
    return { ...response, data: parsed(response.data) };
  } catch (error) {
    const response = (error as { response?: AdapterResponse }).response;
    if (response) (error as { response: { data: unknown } }).response.data = parsed(response.data);
    throw error;
  }
}

/** The axios instance type the API classes take (their third constructor argument). */
type SdkAxios = NonNullable<ConstructorParameters<typeof FrontendApi>[2]>;

/** The SDK reads `defaults.baseURL` (none: the configuration's base path is used) and calls `request`. */
export const sdkRequester = { defaults: {}, request } as unknown as SdkAxios;
