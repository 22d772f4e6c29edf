import { conformance } from './harness.ts';
import { logoutScenarios } from './scenarios/logout.ts';

conformance('logout', logoutScenarios);
