// The identity schema (identity.schema.json): trait nodes (contract §4.4) and trait validation with
// Kratos's message ids (§17.7).
import { readFileSync } from 'node:fs';
import { msg, reasonMessage, type UiText } from './messages.ts';

export interface PropSchema {
  type?: string;
  format?: string;
  title?: string;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  enum?: unknown[];
  /** Item schema of an array trait (its form fields repeat). */
  items?: { type?: string };
  'ory.sh/kratos'?: {
    credentials?: { password?: { identifier?: boolean } };
    verification?: { via?: string };
    recovery?: { via?: string };
  };
}

export interface IdentitySchema {
  id: string;
  raw: Record<string, unknown>;
  props: [string, PropSchema][];
  required: string[];
  additionalProperties: boolean;
}

export function loadSchema(id: string, path?: string): IdentitySchema {
  const file = path ?? new URL('./identity.schema.json', import.meta.url);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  const traits = ((raw.properties as { traits?: unknown } | undefined)?.traits ?? {}) as {
    properties?: unknown;
    required?: unknown;
    additionalProperties?: unknown;
  };
  return {
    id,
    raw,
    props: Object.entries((traits.properties ?? {}) as Record<string, PropSchema>),
    required: (traits.required ?? []) as string[],
    additionalProperties: traits.additionalProperties !== false,
  };
}

export const passwordIdentifierTraits = (s: IdentitySchema) => s.props.filter(([, p]) => p['ory.sh/kratos']?.credentials?.password?.identifier).map(([k]) => k);
export const verificationTraits = (s: IdentitySchema) => s.props.filter(([, p]) => p['ory.sh/kratos']?.verification?.via === 'email').map(([k]) => k);
export const recoveryTraits = (s: IdentitySchema) => s.props.filter(([, p]) => p['ory.sh/kratos']?.recovery?.via === 'email').map(([k]) => k);

const EMAIL_RE = /^[^\s@"<>()[\]\\,;:]+(?:\.[^\s@"<>()[\]\\,;:]+)*@(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$|^[^\s@]+@(?:localhost|\[[0-9.]+\])$/i;
export const isEmail = (v: string): boolean => v.length <= 320 && EMAIL_RE.test(v);

export function normalizeEmail(v: string): string {
  return v.normalize('NFKC').trim().toLowerCase();
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export interface TraitErrors {
  /** messages per node name (traits.<prop>) */
  fields: Record<string, UiText[]>;
  /** messages for ui.messages */
  general: UiText[];
}

/**
 * The traits object of a submit, as a plain copy. Form bodies arrive already typed, blank fields left
 * out (form.ts, Kratos's form decoding); JSON traits are validated as sent, like Kratos: no coercion,
 * and "" stays "" (so an enum trait sent as "" in JSON is refused with 4000001).
 */
export function coerceTraits(_schema: IdentitySchema, input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? { ...(input as Record<string, unknown>) } : {};
}

/**
 * `identityValidator`: the errors of Kratos's identity validator, which also runs the schema's
 * `ory.sh/kratos` extensions: an address for verification or recovery by e-mail that is no e-mail fails
 * there too (its first runner that fails), so the field gets the format message twice. The flows' form
 * decoders validate without them.
 */
export function validateTraits(
  schema: IdentitySchema,
  traits: Record<string, unknown>,
  options: { identityValidator?: boolean } = {},
): TraitErrors | undefined {
  const errs: TraitErrors = { fields: {}, general: [] };
  const add = (name: string, m: UiText) => {
    (errs.fields[`traits.${name}`] ??= []).push(m);
  };
  for (const req of schema.required) {
    if (traits[req] === undefined || traits[req] === null) add(req, msg(4000002, { property: req }));
  }
  for (const [name, p] of schema.props) {
    const v = traits[name];
    if (v === undefined || v === null) continue;
    const t = jsonType(v);
    if (p.type && !(p.type === t || (p.type === 'number' && t === 'integer'))) {
      add(name, msg(4000026, { actual_type: t, allowed_types: [p.type] }));
      continue;
    }
    if (typeof v !== 'string') continue;
    const len = [...v].length;
    if (p.minLength !== undefined && len < p.minLength) add(name, msg(4000003, { actual_length: len, min_length: p.minLength }));
    if (p.maxLength !== undefined && len > p.maxLength) add(name, msg(4000017, { actual_length: len, max_length: p.maxLength }));
    if (p.pattern && !new RegExp(p.pattern, 'u').test(v)) add(name, msg(4000004, { pattern: p.pattern }));
    // v1.3.1 has no 4000040: a format error is the validator's text under 4000001.
    if (p.format === 'email' && !isEmail(v)) add(name, reasonMessage(`"${v}" is not valid "email"`));
    if (p.enum && !p.enum.includes(v)) add(name, msg(4000001, { reason: `value must be one of ${p.enum.map((e) => JSON.stringify(e)).join(', ')}` }));
    const ext = p['ory.sh/kratos'];
    const byEmail = ext?.verification?.via === 'email' || ext?.recovery?.via === 'email';
    if (options.identityValidator && byEmail && !isEmail(v)) add(name, reasonMessage(`"${v}" is not valid "email"`));
  }
  if (!schema.additionalProperties) {
    for (const k of Object.keys(traits)) {
      if (!schema.props.some(([name]) => name === k)) errs.general.push(msg(4000001, { reason: `additionalProperties "${k}" not allowed` }));
    }
  }
  return Object.keys(errs.fields).length || errs.general.length ? errs : undefined;
}

/**
 * Traits are stored as submitted (like Kratos); only the identifiers and addresses derived from them are
 * normalised (trimmed, lower-cased, NFKC) in identities.ts.
 */
export function normalizeTraits(_schema: IdentitySchema, traits: Record<string, unknown>): Record<string, unknown> {
  return { ...traits };
}
