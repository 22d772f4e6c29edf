import { conformance } from './harness.ts';
import { oidcScenarios } from './scenarios/oidc.ts';
import { oidcFixture } from './scenarios/oidc-steps.ts';

conformance('oidc', oidcScenarios, { fixture: oidcFixture });
