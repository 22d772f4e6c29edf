import { conformance } from './harness.ts';
import { expiryScenarios } from './scenarios/expiry.ts';

conformance('expiry', expiryScenarios);
