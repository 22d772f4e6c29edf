import { conformance } from './harness.ts';
import { publicMiscScenarios } from './scenarios/public-misc.ts';

conformance('public-misc', publicMiscScenarios);
