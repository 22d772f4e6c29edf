import { conformance } from './harness.ts';
import { oidcSettingsScenarios } from './scenarios/oidc-settings.ts';
import { oidcFixture } from './scenarios/oidc-steps.ts';

conformance('oidc settings', oidcSettingsScenarios, { fixture: oidcFixture });
