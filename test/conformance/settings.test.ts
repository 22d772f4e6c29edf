import { conformance } from './harness.ts';
import { settingsScenarios } from './scenarios/settings.ts';

conformance('settings', settingsScenarios);
