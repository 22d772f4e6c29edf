import { conformance } from './harness.ts';
import { loginScenarios } from './scenarios/login.ts';

conformance('login', loginScenarios);
