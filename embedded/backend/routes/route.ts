// How a route of the backend stand-in is declared: its handler and its description together, so the
// OpenAPI document (../openapi.ts) is generated from the same zod schemas the handler validates with.
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Access } from '../access.ts';
import type { Accounts } from '../accounts.ts';
import { badRequest } from '../errors.ts';
import type { AppOptions } from '../options.ts';
import { errorSchema } from '../schemas.ts';

export type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
export type Handler = (req: Request, res: Response) => Promise<unknown> | unknown;

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
}

export interface RouteDoc {
  summary: string;
  description?: string;
  tag: 'auth' | 'user' | 'admin' | 'service';
  /** bearer: identity JWT; optionalBearer: JWT or none; adminKey: the stand-in's admin key. */
  security?: 'bearer' | 'optionalBearer' | 'adminKey';
  query?: z.ZodObject;
  body?: { schema: z.ZodType; required: boolean; contentType?: 'application/json' | 'multipart/form-data' };
  responses: Record<number, ResponseDoc>;
}

export interface Route {
  method: Method;
  /** Full path, `/api/...`. */
  path: string;
  handler: Handler;
  /** The handler reads the request body itself (multipart), so no JSON parser runs first. */
  raw?: boolean;
  doc: RouteDoc;
}

/** What route modules are built from. */
export interface RouteContext {
  o: AppOptions;
  accounts: Accounts;
  access: Access;
}

export const errorDoc = (description: string): ResponseDoc => ({ description, schema: errorSchema });

export const INVALID_BODY = errorDoc('Body is not a JSON object or fails validation; unknown members are ignored (code: invalid_json, invalid_body)');
export const IDENTITY_FAILING = errorDoc('Identity service unreachable or failing (code: identity_unavailable, identity_error)');
/** What every bearer-authenticated route may answer besides its own errors. */
export const BEARER_ERRORS = {
  401: errorDoc('Missing, malformed, invalid or expired bearer token (code: unauthorized, token_expired)'),
  403: errorDoc('Account scheduled for deletion or deleted (code: account_pending_deletion, account_deleted)'),
  503: errorDoc('Identity key set unreachable (code: identity_unavailable)'),
};
export const ADMIN_KEY_ERRORS = {
  401: errorDoc('Admin key missing or wrong (code: unauthorized)'),
  403: errorDoc('No admin key configured (code: admin_disabled)'),
};

export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const value = body === undefined || body === null ? {} : body;
  if (typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object');
  const result = schema.safeParse(value);
  if (!result.success) {
    throw badRequest('invalid_body', 'The request body is not valid', {
      issues: result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return result.data;
}

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
