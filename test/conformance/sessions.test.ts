import { conformance } from './harness.ts';
import { sessionScenarios } from './scenarios/sessions.ts';

conformance('sessions', sessionScenarios);
