import { conformance } from './harness.ts';
import { errorFlowScenarios } from './scenarios/error-flow.ts';

conformance('error-flow', errorFlowScenarios);
