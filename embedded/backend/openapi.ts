// The backend stand-in's OpenAPI 3.1 document, generated from the routes' own declarations (routes/*.ts):
// their zod schemas for queries, bodies and answers, and their summaries. Served at GET /api/openapi.json.
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { Route } from './routes/route.ts';

/** Paths in the document are relative to this server URL. */
export const API_BASE = '/api';

const SECURITY = {
  bearer: [{ bearerAuth: [] }],
  optionalBearer: [{ bearerAuth: [] }, {}],
  adminKey: [{ adminKey: [] }],
} as const;

function routeConfig(route: Route): RouteConfig {
  const { doc } = route;
  const request: RouteConfig['request'] = {};
  if (doc.query) request.query = doc.query;
  if (doc.body) request.body = { required: doc.body.required, content: { [doc.body.contentType ?? 'application/json']: { schema: doc.body.schema } } };
  return {
    method: route.method,
    path: route.path.slice(API_BASE.length),
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    ...(doc.security ? { security: SECURITY[doc.security].map((s) => ({ ...s })) } : {}),
    request,
    responses: Object.fromEntries(
      Object.entries(doc.responses).map(([status, r]) => [
        status,
        { description: r.description, ...(r.schema ? { content: { 'application/json': { schema: r.schema } } } : {}) },
      ]),
    ),
  };
}

export function buildOpenApiDocument(routes: readonly Route[]): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Identity tokenizer JWT (tokenize_as=authorization): ES256 with kid, verified against <identity public URL>/.well-known/jwks.json; iss = identity public URL, aud = accounts-backend, exp required. Expired: 401 token_expired; anything else wrong: 401 unauthorized.',
  });
  registry.registerComponent('securitySchemes', 'adminKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'The backend admin key (BACKEND_ADMIN_API_KEY, default IDENTITY_ADMIN_API_KEY).',
  });
  for (const route of routes) registry.registerPath(routeConfig(route));
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'User backend stand-in',
      version: '1.0.0',
      description:
        "Embedded stand-in for the product's user backend (spec §7). Base path /api. Errors are always JSON {code, message, meta?}. Unknown routes 404 not_found; a known path with another method 405 method_not_allowed with an Allow header; malformed JSON 400 invalid_json; JSON bodies above 32 kB 413 payload_too_large. JSON request bodies are objects; unknown members are ignored (never assigned). Responses carry Cache-Control: no-store and X-Content-Type-Options: nosniff. Avatars are served outside /api at GET /avatars/{name}: 200 image/png or image/jpeg (name ^[a-f0-9]{32}\\.(png|jpg)$, Content-Security-Policy: default-src 'none'; sandbox, Cache-Control: public, max-age=31536000, immutable), 404 not_found otherwise, other methods 405.",
    },
    servers: [{ url: API_BASE }],
    tags: [{ name: 'auth' }, { name: 'user' }, { name: 'admin', description: 'Stand-in helpers, not part of the real backend' }, { name: 'service' }],
  });
}
