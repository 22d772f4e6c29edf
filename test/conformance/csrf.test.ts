import { conformance } from './harness.ts';
import { csrfScenarios } from './scenarios/csrf.ts';

conformance('csrf', csrfScenarios);
