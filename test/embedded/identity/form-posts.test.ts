// A browser posting Kratos's own forms straight to the stand-in (findings of the form-post probe):
// blank fields, the Back button of the two-step registration, and the return_to of the verification
// flow that follows a sign-up. Each answer is held to Kratos v1.3.1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formToObject } from '../../../embedded/identity/form.ts';
import { loadSchema } from '../../../embedded/identity/schema.ts';
import { APP, Browser, call, codeIn, CookieJar, csrfOf, flowIdOf, latestMail, node, sdk, startTestIdentity } from './helpers.ts';

type Svc = Awaited<ReturnType<typeof startTestIdentity>>;
let svc: Svc;
let api: ReturnType<typeof sdk>;
let n = 0;
const uniqueEmail = (prefix = 'form') => `${prefix}${++n}-${Date.now()}@example.com`;
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  svc = await startTestIdentity();
  api = sdk(svc.publicUrl, svc.adminUrl);
});
afterAll(async () => {
  await svc.close();
});

async function adminIdentity(email: string): Promise<any> {
  const r = await fetch(`${svc.adminUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`);
  return ((await r.json()) as any[])[0];
}

/** Opens a registration flow in `b` (optionally with a query) and returns its JSON. */
async function openRegistration(b: Browser, query = ''): Promise<any> {
  const res = await b.get(`${svc.publicUrl}/self-service/registration/browser${query}`);
  return (await b.flowJson(`${svc.publicUrl}/self-service/registration/flows?id=${flowIdOf(res.headers.get('location'))}`)).data;
}

const flowOf = async (b: Browser, kind: string, id: string) => (await b.flowJson(`${svc.publicUrl}/self-service/${kind}/flows?id=${id}`)).data;

/** What Kratos's own step-one form posts: every trait field, the blank ones as "". */
const stepOne = (flow: any, email: string, extra: Record<string, string> = {}) => ({
  csrf_token: csrfOf(flow),
  'traits.email': email,
  'traits.name': '',
  'traits.avatarRemoteId': '',
  'traits.loginService': '',
  method: 'profile',
  ...extra,
});

describe('blank form fields are left out, as Kratos v1.3.1 decodes forms', () => {
  it('registration: both steps accept blank optional traits, and none is stored as ""', async () => {
    const b = new Browser();
    const email = uniqueEmail();
    let flow = await openRegistration(b);
    let res = await b.post(flow.ui.action, stepOne(flow, email));
    expect(res.status).toBe(303);
    flow = await flowOf(b, 'registration', flow.id);
    expect(flow.ui.messages).toEqual([expect.objectContaining({ id: 1040009 })]);
    expect(node(flow, 'traits.email').attributes).toMatchObject({ type: 'hidden', value: email });
    // A hidden node only for each trait the form sent (blank ones are left out), none for the others.
    expect(flow.ui.nodes.some((x: any) => x.attributes.name === 'traits.loginService')).toBe(false);
    // Step two posts the hidden trait fields back, blank ones blank, and no method for the traits.
    res = await b.post(flow.ui.action, { ...stepOne(flow, email), method: 'password', password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${APP}/sign-up/verification?flow=`)).toBe(true);
    expect((await adminIdentity(email)).traits).toEqual({ email });
  });

  it('a blank required trait is "missing", not an invalid e-mail', async () => {
    const b = new Browser();
    const flow = await openRegistration(b);
    const res = await b.post(flow.ui.action, stepOne(flow, ''));
    expect(res.status).toBe(302);
    const after = await flowOf(b, 'registration', flow.id);
    expect(node(after, 'traits.email').messages).toEqual([{ id: 4000002, text: 'Property email is missing.', type: 'error', context: { property: 'email' } }]);
    expect(node(after, 'traits.loginService').messages).toEqual([]);
  });

  it('JSON keeps "" (nested objects reach the validator as sent): a blank enum trait is refused', async () => {
    const jar = new CookieJar();
    const created = await call(jar, api.frontend.createBrowserRegistrationFlow({}, { headers: { cookie: jar.header() } }));
    const r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: created.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'profile', csrf_token: csrfOf(created.data), traits: { email: uniqueEmail(), loginService: '' } } as any,
      }),
    );
    expect(r.status).toBe(400);
    expect(node(r.data, 'traits.loginService').messages[0]).toMatchObject({ id: 4000001, text: expect.stringContaining('value must be one of') });
  });

  it('settings: an identity without the trait saves a profile change through a form post', async () => {
    const email = uniqueEmail('settings');
    await call(
      undefined,
      api.identity.createIdentity({
        createIdentityBody: {
          schema_id: 'default',
          traits: { email, name: 'Old' },
          credentials: { password: { config: { password: PASSWORD } } },
          verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }],
        } as any,
      }),
    );
    const b = new Browser();
    let res = await b.get(`${svc.publicUrl}/self-service/login/browser`);
    const login = await flowOf(b, 'login', flowIdOf(res.headers.get('location')));
    res = await b.post(login.ui.action, { csrf_token: csrfOf(login), identifier: email, password: PASSWORD, method: 'password' });
    expect(res.status).toBe(303);
    res = await b.get(`${svc.publicUrl}/self-service/settings/browser`);
    const settings = await flowOf(b, 'settings', flowIdOf(res.headers.get('location')));
    res = await b.post(settings.ui.action, {
      csrf_token: csrfOf(settings),
      'traits.email': email,
      'traits.name': 'New',
      'traits.avatarRemoteId': '',
      'traits.loginService': '',
      method: 'profile',
    });
    expect(res.status).toBe(303);
    expect((await flowOf(b, 'settings', settings.id)).state).toBe('success');
    expect((await adminIdentity(email)).traits).toEqual({ email, name: 'New' });
  });

  it('form fields follow their schema type: first string value, last boolean, numbers parsed, unknown traits ignored', () => {
    const schema = loadSchema('default');
    schema.props.push(['age', { type: 'integer' }], ['newsletter', { type: 'boolean' }], ['tags', { type: 'array', items: { type: 'string' } }]);
    schema.required.push('newsletter');
    const form = new URLSearchParams('traits.email=a%40b.io&traits.email=c%40d.io&traits.age=42&traits.newsletter=false&traits.newsletter=true');
    form.append('traits.tags', 'x');
    form.append('traits.tags', '');
    form.append('traits.unknown', 'dropped');
    form.append('csrf_token', '');
    form.append('method', 'profile');
    expect(formToObject(form, schema)).toEqual({ traits: { email: 'a@b.io', age: 42, newsletter: true, tags: ['x', ''] }, method: 'profile' });
    // Blank: an optional number is left out, a required boolean reads as false; unparsable stays a string.
    expect(formToObject(new URLSearchParams('traits.age=&traits.newsletter='), schema)).toEqual({ traits: { newsletter: false } });
    expect(formToObject(new URLSearchParams('traits.age=forty'), schema)).toEqual({ traits: { age: 'forty' } });
  });
});

describe('the Back button of the two-step registration', () => {
  async function credentialStep(b: Browser, email: string): Promise<any> {
    const flow = await openRegistration(b);
    expect((await b.post(flow.ui.action, stepOne(flow, email, { 'traits.name': 'Ada' }))).status).toBe(303);
    return flowOf(b, 'registration', flow.id);
  }

  it('a form post of screen=previous and no method: 303 to the same flow, back on the profile step with the values', async () => {
    const b = new Browser();
    const email = uniqueEmail('back');
    const flow = await credentialStep(b, email);
    // The browser sends the hidden trait fields and the clicked button only (v1.3.1 checks no CSRF token here).
    const res = await b.post(flow.ui.action, { 'traits.email': email, 'traits.name': 'Ada', 'traits.loginService': '', screen: 'previous' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${APP}/sign-up?flow=${flow.id}`);
    const back = await flowOf(b, 'registration', flow.id);
    expect(back.ui.nodes.map((x: any) => `${x.attributes.name}(${x.attributes.type})`)).toEqual([
      'traits.email(email)',
      'traits.name(text)',
      'traits.avatarRemoteId(text)',
      'traits.loginService(text)',
      'csrf_token(hidden)',
      'method(submit)',
    ]);
    expect(node(back, 'traits.email').attributes.value).toBe(email);
    expect(node(back, 'traits.name').attributes.value).toBe('Ada');
    expect(back.ui.messages).toBeUndefined();
    expect(back.state).toBe('choose_method');
  });

  it('JSON: 400 with the flow on the profile step; method=profile wins over screen=previous (credential step again)', async () => {
    const b = new Browser();
    const email = uniqueEmail('back-json');
    const flow = await credentialStep(b, email);
    const post = (body: Record<string, unknown>) =>
      fetch(flow.ui.action, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', cookie: b.jar.header() },
        body: JSON.stringify({ csrf_token: csrfOf(flow), traits: { email, name: 'Ada' }, ...body }),
      });
    let r = await post({ method: 'profile', screen: 'previous' });
    expect(r.status).toBe(400);
    let data = (await r.json()) as any;
    expect(node(data, 'screen')).toBeDefined();
    expect(node(data, 'traits.email').attributes.type).toBe('hidden');
    r = await post({ screen: 'previous' });
    expect(r.status).toBe(400);
    data = (await r.json()) as any;
    expect(data.id).toBe(flow.id);
    expect(node(data, 'screen')).toBeUndefined();
    expect(node(data, 'traits.email').attributes).toMatchObject({ type: 'email', value: email });
  });
});

describe('the verification flow after a sign-up', () => {
  async function signUp(b: Browser, query: string): Promise<{ location: string; flow: any; email: string }> {
    const email = uniqueEmail('verify');
    let flow = await openRegistration(b, query);
    await b.post(flow.ui.action, stepOne(flow, email));
    flow = await flowOf(b, 'registration', flow.id);
    const csrfBefore = b.jar.get('csrf_token_');
    const res = await b.post(flow.ui.action, { ...stepOne(flow, email), method: 'password', password: PASSWORD });
    expect(res.status).toBe(303);
    // v1.3.1's verification hook renews the anti-CSRF token after a registration.
    expect(b.jar.get('csrf_token_')).not.toBe(csrfBefore);
    const location = res.headers.get('location')!;
    return { location, flow: await flowOf(b, 'verification', flowIdOf(location)), email };
  }

  it("carries the sign-up's return_to: request_url is the registration's, the success screen leads there", async () => {
    const b = new Browser();
    const { flow, email } = await signUp(b, `?return_to=${encodeURIComponent(`${APP}/welcome?step=2`)}`);
    expect(flow.return_to).toBe(`${APP}/welcome?step=2`);
    expect(flow.request_url).toBe(`${svc.publicUrl}/self-service/registration/browser?return_to=${encodeURIComponent(`${APP}/welcome?step=2`)}`);
    // A hook-made verification flow has no resend button (v1.3.1).
    expect(flow.ui.nodes.some((x: any) => x.attributes.name === 'email')).toBe(false);
    const res = await b.post(flow.ui.action, { csrf_token: csrfOf(flow), code: codeIn((await latestMail(svc.adminUrl, email)).body), method: 'code' });
    expect(res.status).toBe(303);
    const done = await flowOf(b, 'verification', flow.id);
    expect(done.state).toBe('passed_challenge');
    expect(done.ui.action).toBe(`${APP}/welcome?step=2`);
  });

  it("after_verification_return_to takes return_to's place (and leaves the query)", async () => {
    const b = new Browser();
    const query = `?return_to=${encodeURIComponent(`${APP}/a`)}&after_verification_return_to=${encodeURIComponent(`${APP}/b`)}`;
    const { flow } = await signUp(b, query);
    expect(flow.return_to).toBe(`${APP}/b`);
    expect(flow.request_url).not.toContain('after_verification_return_to');
  });

  it('JSON: continue_with lists redirect_browser_to, then show_verification_ui whose flow keeps return_to', async () => {
    const jar = new CookieJar();
    const email = uniqueEmail('verify-json');
    let r = await call(jar, api.frontend.createBrowserRegistrationFlow({ returnTo: `${APP}/welcome` }, { headers: { cookie: jar.header() } }));
    const traits = { email };
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'profile', csrf_token: csrfOf(r.data), traits } as any,
      }),
    );
    r = await call(
      jar,
      api.frontend.updateRegistrationFlow({
        flow: r.data.id,
        cookie: jar.header(),
        updateRegistrationFlowBody: { method: 'password', csrf_token: csrfOf(r.data), traits, password: PASSWORD },
      }),
    );
    expect(r.status).toBe(200);
    expect(r.data.continue_with.map((c: any) => c.action)).toEqual(['redirect_browser_to', 'show_verification_ui']);
    const shown = r.data.continue_with[1].flow;
    expect(shown).toEqual({ id: expect.any(String), verifiable_address: email, url: `${APP}/sign-up/verification?flow=${shown.id}` });
    const v = await call(jar, api.frontend.getVerificationFlow({ id: shown.id, cookie: jar.header() }));
    expect(v.status).toBe(200);
    expect(v.data.return_to).toBe(`${APP}/welcome`);
  });
});
