import { conformance } from './harness.ts';
import { recoveryScenarios } from './scenarios/recovery.ts';

conformance('recovery', recoveryScenarios);
