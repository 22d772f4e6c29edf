// Form bodies (application/x-www-form-urlencoded and multipart/form-data) decoded the way Kratos v1.3.1
// decodes them (ory/x decoderx, decodeURLValues): a field is read by the type its JSON schema gives it,
// and a blank field is left out rather than kept as "". So a form with an empty optional trait
// (traits.name=, traits.loginService=) validates as if the field had not been sent, and the trait is not
// stored as "". JSON bodies are not decoded here: their nested `traits` object is taken as sent, "" kept
// (Kratos hands nested JSON objects to the validator raw), so a JSON "" still fails an enum.
import type { IdentitySchema, PropSchema } from './schema.ts';

/** Object keys that would reach the prototype; never set from a request. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype']);

export function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  if (parts.some((p) => UNSAFE.has(p))) return;
  let cur: Record<string, unknown> = target;
  for (const p of parts.slice(0, -1)) {
    const next = cur[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

// Go's strconv.ParseBool and a plain decimal strconv.ParseFloat: what the decoder accepts as typed values.
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);
const GO_FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * One trait field of a form, typed by its schema property. `undefined` means "leave it out".
 * A value that does not parse is kept as the string (decoderx's default, ParseErrorIgnoreConversionErrors),
 * so the validator reports the wrong type.
 */
function traitValue(p: PropSchema, required: boolean, values: string[]): unknown {
  switch (p.type) {
    case 'string': {
      // values.Get: the first value; a blank one is dropped even for a required trait ("missing" then).
      const v = values[0]!;
      return v === '' ? undefined : v;
    }
    case 'boolean': {
      // The last value wins (a hidden "false" before a checkbox); blank is false only when required.
      const v = values[values.length - 1]!;
      if (v === '') return required ? false : undefined;
      return GO_TRUE.has(v) ? true : GO_FALSE.has(v) ? false : v;
    }
    case 'number':
    case 'integer': {
      const v = values[0]!;
      if (v === '') return required ? 0 : undefined;
      return GO_FLOAT.test(v) ? Number(v) : v;
    }
    case 'array':
      // Every value, blanks included, as the schema's item type says (strings here).
      return p.items?.type === 'number' || p.items?.type === 'integer'
        ? values.map((v) => (GO_FLOAT.test(v) ? Number(v) : v))
        : p.items?.type === 'boolean'
          ? values.map((v) => (GO_TRUE.has(v) ? true : GO_FALSE.has(v) ? false : v))
          : [...values];
    default:
      // A property without a single type has no form decoding in Kratos: the field is ignored.
      return undefined;
  }
}

/**
 * Form fields (in order, repeated names allowed) to the object a JSON body would give. `traits.<name>`
 * fields are typed by the identity schema and fields the schema does not know are ignored, as Kratos
 * only decodes the paths its schema lists; every other field is a string, its first value, left out when
 * blank (the method schemas type them all as strings).
 */
export function formToObject(entries: Iterable<[string, string]>, schema: IdentitySchema): Record<string, unknown> {
  const grouped = new Map<string, string[]>();
  for (const [k, v] of entries) {
    const list = grouped.get(k);
    if (list) list.push(v);
    else grouped.set(k, [v]);
  }
  const out: Record<string, unknown> = {};
  for (const [key, values] of grouped) {
    if (key.startsWith('traits.')) {
      const name = key.slice('traits.'.length);
      const p = schema.props.find(([n]) => n === name)?.[1];
      const v = p ? traitValue(p, schema.required.includes(name), values) : undefined;
      if (v !== undefined) setPath(out, key, v);
      continue;
    }
    if (values[0] !== '') setPath(out, key, values[0]);
  }
  return out;
}
