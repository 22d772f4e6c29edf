// Issue 10 #12: a huge address of a login-required page must not become a Location browsers refuse.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_RETURN_TO_LENGTH } from '../../../server/security/return-to.ts';
import { startStack, type Stack } from '../../support/stack.ts';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

const locationOf = async (path: string) => {
  const answer = await fetch(`${stack.appUrl}${path}`, { redirect: 'manual', headers: { accept: 'text/html' } });
  expect(answer.status).toBe(303);
  return answer.headers.get('location')!;
};

describe('requireLogin bounds return_to', () => {
  test('a 10.9 KB query is dropped: the page itself is kept and the Location stays small', async () => {
    const location = await locationOf(`/profile-settings?junk=${'a%2F'.repeat(2_725)}`);
    expect(location.length).toBeLessThan(MAX_RETURN_TO_LENGTH);
    expect(new URL(location, stack.appUrl).searchParams.get('return_to')).toBe(`${stack.appUrl}/profile-settings`);
  });

  test('a normal address is kept whole', async () => {
    const location = await locationOf('/profile-settings?tab=security');
    expect(new URL(location, stack.appUrl).searchParams.get('return_to')).toBe(`${stack.appUrl}/profile-settings?tab=security`);
  });
});
