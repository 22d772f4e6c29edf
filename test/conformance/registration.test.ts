import { conformance } from './harness.ts';
import { registrationScenarios } from './scenarios/registration.ts';

conformance('registration', registrationScenarios);
