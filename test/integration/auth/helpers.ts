// Kept only for the profile tests (test/integration/profile, test/e2e/profile.test.ts), which still
// import this path with its old signatures: the helpers live in test/support (http.ts for the HTTP
// browser and HTML readers, fixtures.ts for identities and codes). Remove once those files import from
// test/support.
import { createIdentity as createTestIdentity, STRONG_PASSWORD } from '../../support/fixtures.ts';

export * from '../../support/http.ts';
export { signIn, STRONG_PASSWORD, uniqueEmail } from '../../support/fixtures.ts';

/** The old positional form: a verified identity with a password through the admin API; its id. */
export async function createIdentity(adminUrl: string, email: string, password = STRONG_PASSWORD, name = 'Ada'): Promise<string> {
  return (await createTestIdentity(adminUrl, { email, password, name })).id;
}
