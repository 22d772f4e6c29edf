import { conformance } from './harness.ts';
import { verificationScenarios } from './scenarios/verification.ts';

conformance('verification', verificationScenarios);
