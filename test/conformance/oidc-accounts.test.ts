import { conformance } from './harness.ts';
import { oidcAccountScenarios } from './scenarios/oidc-accounts.ts';
import { oidcFixture } from './scenarios/oidc-steps.ts';

conformance('oidc accounts', oidcAccountScenarios, { fixture: oidcFixture });
