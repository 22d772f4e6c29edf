// The one list of differences between the identity stand-in and real Ory Kratos v1.3.1 that the
// conformance suite accepts, each with the reason it is acceptable. Anything not listed fails.
// Keep it short and honest: a difference the stand-in can simply remove is fixed there instead.
import type { AllowedDifference } from './compare.ts';

export const allowedDifferences: readonly AllowedDifference[] = [];
