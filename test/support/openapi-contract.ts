/**
 * Test helper: validates requests and responses against the served OpenAPI document with ajv
 * (JSON Schema 2020-12, the dialect of OpenAPI 3.1). The whole document is added to ajv once, so the
 * `#/components/schemas/...` references inside operations resolve exactly as in the document.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

type Document = { paths: Record<string, Record<string, unknown>> };
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export type Contract = {
  /** Throws with the ajv errors when the body does not match the documented response. */
  response(method: string, path: string, status: number, body: unknown, contentType?: string): void;
  request(method: string, path: string, body: unknown, contentType: 'application/json' | 'application/x-www-form-urlencoded'): void;
  has(method: string, path: string): boolean;
};

export function openApiContract(document: Document): Contract {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document as object, 'openapi');
  const cache = new Map<string, ValidateFunction>();

  const validator = (ref: string): ValidateFunction => {
    let validate = cache.get(ref);
    if (!validate) {
      validate = ajv.getSchema(`openapi#/${ref}`);
      if (!validate) throw new Error(`no schema at ${ref}`);
      cache.set(ref, validate);
    }
    return validate;
  };
  const check = (ref: string, body: unknown, what: string) => {
    const validate = validator(ref);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
      throw new Error(`${what} does not match the OpenAPI document:\n${errors.join('\n')}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
    }
  };
  const operation = (method: string, path: string) => {
    const op = document.paths[path]?.[method.toLowerCase()] as
      { responses: Record<string, { content?: Record<string, unknown> }>; requestBody?: { content: Record<string, unknown> } } | undefined;
    if (!op) throw new Error(`${method} ${path} is not documented`);
    return op;
  };

  return {
    has: (method, path) => Boolean(document.paths[path]?.[method.toLowerCase()]),
    response(method, path, status, body, contentType = 'application/json') {
      const op = operation(method, path);
      const key = op.responses[String(status)] ? String(status) : 'default';
      const response = op.responses[key];
      if (!response) throw new Error(`${method} ${path} does not document status ${status}`);
      if (!response.content?.[contentType]) throw new Error(`${method} ${path} ${status} documents no ${contentType} body`);
      check(pointer('paths', path, method.toLowerCase(), 'responses', key, 'content', contentType, 'schema'), body, `${method} ${path} ${status}`);
    },
    request(method, path, body, contentType) {
      const op = operation(method, path);
      if (!op.requestBody?.content[contentType]) throw new Error(`${method} ${path} documents no ${contentType} request body`);
      check(pointer('paths', path, method.toLowerCase(), 'requestBody', 'content', contentType, 'schema'), body, `${method} ${path} request`);
    },
  };
}
