// Vitest setup file (every project): when a test fails, what the stacks it ran on logged (stack-log.ts)
// goes to stderr next to the failure, so a CI run that fails once says why.
import { beforeEach } from 'vitest';
import { runningStacksReport } from './stack-log.ts';

beforeEach(({ onTestFailed, task }) => {
  onTestFailed(() => {
    const report = runningStacksReport();
    if (report) console.error(`What the stacks logged when "${task.name}" failed:\n${report}`);
  });
});
