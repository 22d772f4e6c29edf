// The one list of differences between the identity stand-in and real Ory Kratos v1.3.1 that the
// conformance suite accepts, each with the reason it is acceptable. Anything not listed fails.
// Keep it short and honest: a difference the stand-in can simply remove is fixed there instead.
import type { AllowedDifference } from './compare.ts';

export const allowedDifferences: readonly AllowedDifference[] = [
  {
    scenario: 'health and version; paths outside /admin on the admin port; an admin path on the public port',
    request: /^GET \{public\}\/version /,
    path: /^(body|contentType)$/,
    reason:
      'A route the public port does not have: Go’s router answers text/plain "404 page not found", the stand-in its JSON 404 envelope for every unknown path (its robustness tests rely on that). Same status; no client reads this body.',
  },
];
