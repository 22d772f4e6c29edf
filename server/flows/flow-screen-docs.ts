/**
 * The OpenAPI entries of a flow screen. Every screen answers the runner's shared cases the same way
 * (a new flow shown at once, a flow from another browser, an unknown or expired flow, the rate limit), so those are
 * written here once; a screen describes only its own answers.
 */
import type { z } from 'zod';
import { documentEndpoint, errorResponse, flowError, TOO_MANY_REQUESTS, type EndpointDoc, type ResponseDoc } from '../openapi/registry.ts';
import { flowQuery } from './schemas.ts';

type Responses = EndpointDoc['responses'];

export type FlowScreenDocs = {
  tag: string;
  /** Defaults to `flowQuery` (?flow= and the kept spec §2 parameters). */
  query?: z.ZodObject;
  get: { summary: string; description?: string; ok: ResponseDoc; more?: Responses };
  post: { summary: string; description?: string; ok: ResponseDoc; invalid: string; more?: Responses };
};

// A browser without a usable `?flow=` gets the page of a new flow at once (decision 190), the flow's id in the form's action.
const SIGNED_IN_GUEST = 'HTML: not for this browser: signed in on a guest screen, on to return_to; a guest on a signed-in screen, to sign-in';

/** `rateLimited`: the POST may answer 429 (the screen has a rate-limit scope). */
export function documentFlowScreen(paths: readonly string[], body: z.ZodType, docs: FlowScreenDocs, rateLimited: boolean): void {
  const query = docs.query ?? flowQuery;
  for (const path of paths) {
    documentEndpoint({
      method: 'get',
      path,
      summary: docs.get.summary,
      description: docs.get.description,
      tags: [docs.tag],
      query,
      responses: { 200: docs.get.ok, 303: { description: SIGNED_IN_GUEST }, ...docs.get.more },
    });
    documentEndpoint({
      method: 'post',
      path,
      summary: docs.post.summary,
      description: docs.post.description,
      tags: [docs.tag],
      query,
      body,
      responses: {
        200: docs.post.ok,
        400: flowError(docs.post.invalid),
        403: flowError('Flow from another browser: continue with the new flow in `flow` (id in meta.flowId)'),
        404: flowError('Unknown flow (code `self_service_flow_missing`): continue with the new flow in `flow`'),
        410: flowError('Flow expired or replaced: continue with the new flow in `flow`'),
        ...(rateLimited ? { 429: TOO_MANY_REQUESTS } : {}),
        ...docs.post.more,
      },
    });
  }
}

/** The guest screens' extra answer: already signed in. */
export const SIGNED_IN: Responses = { 400: errorResponse('Already signed in (JSON): code session_already_available, meta.redirect_browser_to') };
