// The one place tests get their test data from: identities in every variant (verified or not, with a
// name, with or without a password; through the identity admin API or through the real sign-up flow),
// the codes the courier "sent", a signed-in HTTP browser, and a cleanup that always deletes what was
// created (like Epic Stack's user fixture).
//
//   const identities = useIdentities(() => stack.identity.adminUrl);   // at the top of a test file
//   const ada = await identities.create({ name: 'Ada' });              // verified, STRONG_PASSWORD
//   const pending = await identities.create({ verified: false });
//   const viaFlow = await identities.signUp(stack.appUrl);             // the real two-step sign-up
//   const { browser } = await identities.signedIn(stack.appUrl);       // created and signed in
//
// Every identity made through a fixture is deleted after the test that made it (or after the file, when
// made in beforeAll). Playwright browsers are in ./browser.ts; the HTTP cookie-jar browser and the HTML
// readers in ./http.ts.
import { afterAll, afterEach, beforeEach, vi } from 'vitest';
import { Browser, formAction, hiddenValue } from './http.ts';

export { Browser } from './http.ts';

/** A strong password no breach list holds and unlike any e-mail we generate. */
export const STRONG_PASSWORD = 'Violet-Harbour-Quartz-93';

let counter = 0;
/** An address no other test (of this or another process) uses. */
export function uniqueEmail(prefix = 'user'): string {
  counter += 1;
  return `${prefix}.${process.pid}.${counter}.${Date.now().toString(36)}@example.com`;
}

export type TestIdentity = { id: string; email: string; password: string | undefined; name: string; verified: boolean };

export type IdentityOptions = {
  /** Default: a unique address made from `prefix`. */
  email?: string;
  prefix?: string;
  /** Default 'Ada'. */
  name?: string;
  /** Default STRONG_PASSWORD; `null` makes an identity without a password credential. */
  password?: string | null;
  /** Default true: the address is verified, as after a completed verification. */
  verified?: boolean;
  /** Kratos's metadata_public (e.g. a marker the app writes); default none. */
  metadataPublic?: Record<string, unknown>;
};

/** Creates an identity through the identity service's admin API (a fixture, not the flow under test). Not tracked: prefer useIdentities(). */
export async function createIdentity(adminUrl: string, options: IdentityOptions = {}): Promise<TestIdentity> {
  const email = options.email ?? uniqueEmail(options.prefix);
  const name = options.name ?? 'Ada';
  const password = options.password === null ? undefined : (options.password ?? STRONG_PASSWORD);
  const verified = options.verified ?? true;
  const response = await fetch(`${adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name },
      ...(password ? { credentials: { password: { config: { password } } } } : {}),
      ...(verified ? { verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }] } : {}),
      ...(options.metadataPublic ? { metadata_public: options.metadataPublic } : {}),
    }),
  });
  if (response.status !== 201) throw new Error(`createIdentity: ${response.status} ${await response.text()}`);
  const { id } = (await response.json()) as { id: string };
  return { id, email, password, name, verified };
}

/** The identity whose e-mail identifier is `email`, through the admin API; undefined when there is none. */
export async function findIdentity(
  adminUrl: string,
  email: string,
): Promise<{ id: string; state: string; verifiable_addresses?: { value: string; verified: boolean }[] } | undefined> {
  const response = await fetch(`${adminUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`findIdentity: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string; state: string }[])[0];
}

export type IdentityRecord = {
  id: string;
  state: string;
  traits: Record<string, unknown>;
  metadata_admin?: unknown;
  metadata_public?: unknown;
  verifiable_addresses?: { value: string; verified: boolean }[];
};

/** An identity by id, through the admin API (to check what a flow changed, or did not). */
export async function getIdentity(adminUrl: string, id: string): Promise<IdentityRecord> {
  const response = await fetch(`${adminUrl}/admin/identities/${id}`, { headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`getIdentity ${id}: ${response.status} ${await response.text()}`);
  return (await response.json()) as IdentityRecord;
}

/** Deletes an identity; one that is already gone (the test deleted it) is fine. */
export async function deleteIdentity(adminUrl: string, id: string): Promise<void> {
  const response = await fetch(`${adminUrl}/admin/identities/${id}`, { method: 'DELETE' });
  if (response.status !== 204 && response.status !== 404) throw new Error(`deleteIdentity ${id}: ${response.status} ${await response.text()}`);
}

export async function setIdentityState(adminUrl: string, id: string, state: 'active' | 'inactive'): Promise<void> {
  const response = await fetch(`${adminUrl}/admin/identities/${id}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify([{ op: 'replace', path: '/state', value: state }]),
  });
  if (response.status !== 200) throw new Error(`setIdentityState: ${response.status} ${await response.text()}`);
}

// ── the courier ────────────────────────────────────────────────────────────────────────────────────

export type CourierMessage = { recipient: string; template_type: string; body: string; created_at: string };

/** Every courier message addressed to `email`, as the admin API lists them (Kratos shape). */
export async function courierMessages(adminUrl: string, email: string): Promise<CourierMessage[]> {
  const response = await fetch(`${adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`, { headers: { accept: 'application/json' } });
  const list = (await response.json()) as CourierMessage[];
  return list.filter((message) => message.recipient === email.toLowerCase());
}

/**
 * The newest six-digit code mailed to `email` (of `kind`, recovery or verification, when given). Waits
 * for it up to `timeout` ms, since a browser test may ask right after the page that sent it loaded.
 */
export async function latestCode(adminUrl: string, email: string, kind?: 'recovery' | 'verification', timeout = 5_000): Promise<string> {
  return vi.waitFor(
    async () => {
      const messages = (await courierMessages(adminUrl, email))
        .filter((message) => !kind || message.template_type.startsWith(`${kind}_code`))
        .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.created_at.localeCompare(a.created_at));
      for (const message of messages) {
        const code = /\b(\d{6})\b/.exec(message.body)?.[1];
        if (code) return code;
      }
      throw new Error(`no ${kind ?? ''} code mailed to ${email}`);
    },
    { timeout, interval: 50 },
  );
}

/** The first link in the newest message of `templateType` mailed to `email` (waits for it like latestCode). */
export async function latestLink(adminUrl: string, email: string, templateType: string, timeout = 5_000): Promise<string> {
  return vi.waitFor(
    async () => {
      const message = (await courierMessages(adminUrl, email)).filter((m) => m.template_type === templateType).at(-1);
      const link = /https?:\/\/\S+/.exec(message?.body ?? '')?.[0];
      if (!link) throw new Error(`no ${templateType} link mailed to ${email}`);
      return link;
    },
    { timeout, interval: 50 },
  );
}

// ── the HTTP flows a fixture may go through ────────────────────────────────────────────────────────

/** Signs in through our form (plain post); returns the answer of the POST (303 on success). */
export async function signIn(browser: Browser, email: string, password = STRONG_PASSWORD, query = '', headers?: Record<string, string>) {
  const page = await browser.follow(`/sign-in${query}`);
  const action = formAction(page.text, 'sign-in-form');
  const csrf = hiddenValue(page.text, 'csrf_token');
  if (!action || !csrf) throw new Error(`no sign-in form (status ${page.status})`);
  return browser.post(action, { csrf_token: csrf, identifier: email, password, method: 'password' }, headers);
}

/** Signs up through the real two-step flow; returns the answer of the credential step (303 to verification). */
async function signUpThroughFlow(browser: Browser, email: string, name: string, password: string) {
  const page = await browser.follow('/sign-up');
  const action = formAction(page.text, 'sign-up-form');
  const csrf = hiddenValue(page.text, 'csrf_token');
  if (!action || !csrf) throw new Error(`no sign-up form (status ${page.status})`);
  const profile = await browser.post(action, { csrf_token: csrf, 'traits.email': email, 'traits.name': name, method: 'profile', terms: 'on' });
  const credentials = profile.status === 303 ? await browser.follow(profile.location!) : { ...profile, url: action };
  const next = formAction(credentials.text, 'sign-up-form');
  const nextCsrf = hiddenValue(credentials.text, 'csrf_token');
  if (!next || !nextCsrf) throw new Error(`no credential step (status ${credentials.status})`);
  const done = await browser.post(next, { csrf_token: nextCsrf, 'traits.email': email, 'traits.name': name, password, method: 'password', terms: 'on' });
  if (done.status !== 303 || !done.location?.startsWith('/sign-up/verification'))
    throw new Error(`sign-up: ${done.status} ${done.location ?? done.text.slice(0, 200)}`);
  return done;
}

// ── the tracked fixtures ───────────────────────────────────────────────────────────────────────────

export type Identities = {
  /** An identity through the admin API: verified, named 'Ada', with STRONG_PASSWORD unless told otherwise. */
  create(options?: IdentityOptions): Promise<TestIdentity>;
  /** An identity through the real sign-up flow of the app (unverified, as the flow leaves it; `verify` completes verification with the mailed code). */
  signUp(
    appUrl: string,
    options?: Omit<IdentityOptions, 'verified' | 'password'> & { password?: string; verify?: boolean; browser?: Browser },
  ): Promise<TestIdentity & { browser: Browser }>;
  /** An identity (as create) and an HTTP browser signed in as it. */
  signedIn(appUrl: string, options?: IdentityOptions): Promise<TestIdentity & { browser: Browser }>;
  /** Marks an identity made some other way (e.g. by the flow under test) for deletion too. */
  track(email: string): void;
};

/**
 * The identity fixtures of one test file. Everything created is deleted after the test that created it,
 * or after the file for identities made in beforeAll. Call at the top level of the file, after the
 * hooks that start the stack (after-hooks run in reverse order, so the cleanup runs before the stack
 * stops).
 */
export function useIdentities(adminUrl: () => string): Identities {
  const perTest: { id?: string; email?: string }[] = [];
  const perFile: { id?: string; email?: string }[] = [];
  let inTest = false;
  const list = () => (inTest ? perTest : perFile);

  const cleanup = async (entries: { id?: string; email?: string }[]) => {
    const url = adminUrl();
    const taken = entries.splice(0);
    for (const entry of taken) {
      const id = entry.id ?? (entry.email ? (await findIdentity(url, entry.email))?.id : undefined);
      if (id) await deleteIdentity(url, id);
    }
  };
  // beforeEach/afterEach run around every test only: they tell a test's identities from the file's.
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await cleanup(perTest);
  });
  afterAll(() => cleanup(perFile));
  const identities: Identities = {
    async create(options = {}) {
      const identity = await createIdentity(adminUrl(), options);
      list().push({ id: identity.id });
      return identity;
    },
    async signUp(appUrl, options = {}) {
      const email = options.email ?? uniqueEmail(options.prefix ?? 'signup');
      const name = options.name ?? 'Ada';
      const password = options.password ?? STRONG_PASSWORD;
      const browser = options.browser ?? new Browser(appUrl);
      list().push({ email });
      const done = await signUpThroughFlow(browser, email, name, password);
      if (options.verify) {
        const page = await browser.follow(done.location!);
        const action = formAction(page.text, 'verification-form') ?? page.url;
        const code = await latestCode(adminUrl(), email, 'verification');
        const verified = await browser.post(action, { csrf_token: hiddenValue(page.text, 'csrf_token') ?? '', code, method: 'code' });
        if (verified.status >= 400) throw new Error(`verification: ${verified.status}`);
      }
      const found = await findIdentity(adminUrl(), email);
      if (!found) throw new Error(`sign-up left no identity for ${email}`);
      const verified = Boolean(found.verifiable_addresses?.some((address) => address.verified));
      if (options.verify && !verified) throw new Error(`${email} is still unverified`);
      return { id: found.id, email, password, name, verified, browser };
    },
    async signedIn(appUrl, options = {}) {
      const identity = await identities.create(options);
      if (!identity.password) throw new Error('signedIn needs a password');
      const browser = new Browser(appUrl);
      const answer = await signIn(browser, identity.email, identity.password);
      if (answer.status !== 303) throw new Error(`sign-in: ${answer.status} ${answer.text.slice(0, 200)}`);
      return { ...identity, browser };
    },
    track(email) {
      list().push({ email });
    },
  };
  return identities;
}
