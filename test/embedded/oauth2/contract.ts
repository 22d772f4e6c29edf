// Hydra's OpenAPI document (../shared/contracts/hydra-openapi.json, OpenAPI 3.0.3) as a validator of
// the stand-in's answers. test/support/openapi-contract.ts reads it as it is (ajv 2020 with strict off
// ignores 3.0's `nullable`/`example`); members whose value is null are left out before checking,
// because real Hydra v2.3.0 itself sends null where the document types them non-nullable
// (`contacts` and `response_types` of a created client, `skip_logout_consent`, the lifespans, a
// logout request's `expires_at`, `requested_at` and OP-initiated `client`).
import { readFileSync } from 'node:fs';
import { openApiContract, type Contract } from '../../support/openapi-contract.ts';
import { contractPath } from '../../support/shared-contracts.ts';

export const HYDRA_OPENAPI = 'hydra-openapi.json';

export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, member]) => member !== null)
        .map(([key, member]) => [key, withoutNulls(member)]),
    );
  }
  return value;
}

type Document = {
  paths: Record<string, Record<string, { responses?: Record<string, { $ref?: string }> }>>;
  components: { responses?: Record<string, object> };
};

/** Hydra's document names many responses by `$ref` to components/responses; the validator wants them inline. */
function inlineResponses(document: Document): Document {
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const ref = response.$ref?.replace('#/components/responses/', '');
        if (ref && document.components.responses?.[ref]) operation.responses![status] = document.components.responses[ref];
      }
    }
  }
  return document;
}

export function hydraContract(): Contract {
  const base = openApiContract(inlineResponses(JSON.parse(readFileSync(contractPath(HYDRA_OPENAPI), 'utf8')) as Document));
  return { ...base, response: (method, path, status, body, contentType) => base.response(method, path, status, withoutNulls(body), contentType) };
}
