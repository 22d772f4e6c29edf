/**
 * The integrators' API description, generated from the very zod schemas the handlers validate with.
 *
 * Each route documents itself once, next to its schema, when its router is built:
 *
 *   documentEndpoint({
 *     method: 'post', path: '/forgot-password', summary: '…', tags: ['recovery'],
 *     query: recoveryQuery, body: recoveryBody,
 *     responses: { 200: { description: '…', schema: recoveryState }, 400: errorResponse('…') },
 *   });
 *
 * `buildOpenApiDocument(config)` turns the registry into an OpenAPI 3.1 document (served by
 * server/routes/swagger.ts at /swagger/openapi.json). Schemas are converted with zod v4's own
 * `z.toJSONSchema` (target JSON Schema 2020-12, the dialect of OpenAPI 3.1): request parts in "input"
 * mode (what a caller may send), responses in "output" mode (what we send). A body is offered both as
 * `application/x-www-form-urlencoded` (dotted names such as `traits.email`, exactly as our HTML forms
 * post) and as `application/json`, because one handler accepts both.
 *
 * Registering the same method and path again replaces the earlier entry, so building several apps in
 * one process (tests) does not duplicate operations.
 */
import { z } from 'zod';
import type { Config } from '../config.ts';
import { flowErrorSchema } from '../flows/schemas.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type ResponseDoc = {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json when a schema is given. */
  contentType?: string;
  /** Response headers worth telling integrators about, e.g. Retry-After or X-Redirect-To. */
  headers?: Record<string, { description: string; schema?: z.ZodType }>;
};

export type EndpointDoc = {
  method: HttpMethod;
  /** Express-style path; `:name` segments become `{name}` path parameters. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  operationId?: string;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Which request body encodings the handler accepts. Defaults to both. */
  bodyTypes?: ReadonlyArray<'form' | 'json'>;
  responses: Partial<Record<number | 'default', ResponseDoc>>;
};

/**
 * The spec's error shape `{ code, message, meta? }` (spec §3), shared by every JSON error answer. Open to
 * extra members: form endpoints add the replacement `flow` next to the error.
 */
export const errorResponseSchema = z
  .looseObject({
    code: z.string().describe('Stable machine-readable code, e.g. incorrect_email_password or too_many_requests.'),
    message: z.string().describe('Human-readable message in the language of the request.'),
    meta: z.record(z.string(), z.unknown()).optional().describe('Extra details, e.g. redirect_browser_to or retryAfterSeconds.'),
  })
  .meta({ id: 'Error' });

/** Shorthand for an error response entry. */
export function errorResponse(description: string): ResponseDoc {
  return { description, schema: errorResponseSchema };
}

/** The 429 every rate-limited form endpoint may answer. */
export const TOO_MANY_REQUESTS: ResponseDoc = {
  description: 'Too many attempts from this client or for this email address; retry after the given delay.',
  schema: errorResponseSchema,
  headers: { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: z.number().int() } },
};

export const flowError = (description: string): ResponseDoc => ({ description, schema: flowErrorSchema });

const registry = new Map<string, EndpointDoc>();

export function documentEndpoint(doc: EndpointDoc): void {
  registry.set(`${doc.method} ${doc.path}`, doc);
}

/** The registered endpoints, for tests and tooling. */
export function documentedEndpoints(): EndpointDoc[] {
  return [...registry.values()];
}

type JsonSchema = Record<string, unknown>;

/**
 * zod puts schemas that carry `.meta({ id })` into a local `$defs` and points at them with
 * `#/$defs/<id>`. Inside an OpenAPI document `#` is the document itself, so those definitions move to
 * `components.schemas` and the references are rewritten to match.
 */
function hoistDefinitions(value: unknown, components: Record<string, JsonSchema>): unknown {
  if (Array.isArray(value)) return value.map((item) => hoistDefinitions(item, components));
  if (!value || typeof value !== 'object') return value;
  const result: JsonSchema = {};
  for (const [key, inner] of Object.entries(value as JsonSchema)) {
    if (key === '$schema') continue; // OpenAPI 3.1 documents have one dialect for all schemas
    if (key === '$defs' && inner && typeof inner === 'object') {
      for (const [name, definition] of Object.entries(inner as JsonSchema)) {
        components[name] = hoistDefinitions(definition, components) as JsonSchema;
      }
      continue;
    }
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
      result.$ref = `#/components/schemas/${inner.slice('#/$defs/'.length)}`;
      continue;
    }
    result[key] = hoistDefinitions(inner, components);
  }
  return result;
}

function toSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' });
  return hoistDefinitions(json, components) as JsonSchema;
}

function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

function queryParameters(query: z.ZodObject, components: Record<string, JsonSchema>): JsonSchema[] {
  const schema = toSchema(query, 'input', components);
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function operation(doc: EndpointDoc, params: string[], components: Record<string, JsonSchema>): JsonSchema {
  const parameters = [
    ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(doc.query ? queryParameters(doc.query, components) : []),
  ];
  const op: JsonSchema = {
    operationId: doc.operationId ?? `${doc.method}${doc.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(parameters.length ? { parameters } : {}),
  };
  if (doc.body) {
    const schema = toSchema(doc.body, 'input', components);
    const types = doc.bodyTypes ?? ['form', 'json'];
    const content: JsonSchema = {};
    if (types.includes('form')) content['application/x-www-form-urlencoded'] = { schema };
    if (types.includes('json')) content['application/json'] = { schema };
    op.requestBody = { required: true, content };
  }
  const responses: JsonSchema = {};
  for (const [status, response] of Object.entries(doc.responses)) {
    if (!response) continue;
    const entry: JsonSchema = { description: response.description };
    if (response.schema) entry.content = { [response.contentType ?? 'application/json']: { schema: toSchema(response.schema, 'output', components) } };
    else if (response.contentType) entry.content = { [response.contentType]: {} };
    if (response.headers) {
      entry.headers = Object.fromEntries(
        Object.entries(response.headers).map(([name, header]) => [
          name,
          { description: header.description, schema: header.schema ? toSchema(header.schema, 'output', components) : { type: 'string' } },
        ]),
      );
    }
    responses[status] = entry;
  }
  op.responses = responses;
  return op;
}

/** The OpenAPI 3.1 document of every endpoint documented so far. */
export function buildOpenApiDocument(config: Pick<Config, 'PUBLIC_URL'>): JsonSchema {
  const paths: Record<string, JsonSchema> = {};
  const tags = new Set<string>();
  const components: Record<string, JsonSchema> = {};
  const sorted = [...registry.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const doc of sorted) {
    const { path, params } = openApiPath(doc.path);
    paths[path] ??= {};
    paths[path][doc.method] = operation(doc, params, components);
    for (const tag of doc.tags) tags.add(tag);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Accounts API',
      version: '1.0.0',
      description:
        'The sign-in, sign-up, verification and recovery forms of the accounts app, for integrators. Every form endpoint ' +
        'answers JSON when called with `Accept: application/json`; the same endpoints serve HTML to browsers. State-changing ' +
        'calls carry the `csrf_token` of the flow they act on and the cookies set by the previous answer.',
    },
    servers: [{ url: config.PUBLIC_URL.replace(/\/+$/, '') }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths,
    components: { schemas: components },
  };
}
