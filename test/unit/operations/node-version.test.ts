import { describe, expect, it } from 'vitest';
import { MINIMUM_NODE_MAJOR, nodeVersionProblem } from '../../../server/node-version.ts';

describe('the Node version the app starts on', () => {
  it('runs on Node 24 and newer', () => {
    expect(nodeVersionProblem('v24.0.0')).toBeUndefined();
    expect(nodeVersionProblem('v24.21.0')).toBeUndefined();
    expect(nodeVersionProblem('v26.1.0')).toBeUndefined();
    expect(nodeVersionProblem(process.version)).toBeUndefined(); // the tests themselves run on the installed node@24
  });

  it('refuses an older Node with one line that says what to do', () => {
    const problem = nodeVersionProblem('v20.20.2');
    expect(problem).toBe(
      `accounts needs Node ${MINIMUM_NODE_MAJOR} or newer; this is Node v20.20.2. Start it with npm (npm start uses the Node 24 that npm installed) or in the node:24 image.`,
    );
    expect(nodeVersionProblem('v22.12.0')).toContain('needs Node 24');
    expect(nodeVersionProblem('garbage')).toContain('needs Node 24');
  });
});
