import { conformance } from './harness.ts';
import { adminScenarios } from './scenarios/admin.ts';

conformance('admin', adminScenarios);
