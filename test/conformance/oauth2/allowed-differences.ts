// The one list of differences between the OAuth2 stand-in (embedded/oauth2) and real Ory Hydra v2.3.0
// that the OAuth2 conformance suite accepts, each with the reason it is acceptable. Anything not
// listed fails. A difference the stand-in can simply remove is fixed there instead (the stand-in's
// helper reads /work/helper-notes/oauth2-differences.md); variation between two correct providers
// (random values, times) is normalised (./normalise.ts), not listed here.
import type { AllowedDifference } from '../compare.ts';

export const oauth2AllowedDifferences: readonly AllowedDifference[] = [];
