import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestIdentity } from './helpers.ts';
import { browserJourney, sdkJourney } from './journeys.ts';

describe('full journey (issue bar)', () => {
  let svc: Awaited<ReturnType<typeof startTestIdentity>>;
  beforeAll(async () => {
    svc = await startTestIdentity({ adminApiKey: 'test-key' });
  });
  afterAll(async () => {
    await svc.close();
  });

  it('registration → verification → login → settings → logout → recovery → new password, through @ory/client', async () => {
    await sdkJourney({ ...svc, apiKey: 'test-key' }, 'ada@example.com');
  });

  it('the same journey with plain browser form posts and redirects', async () => {
    await browserJourney({ ...svc, apiKey: 'test-key' }, 'bea@example.com');
  });
});
