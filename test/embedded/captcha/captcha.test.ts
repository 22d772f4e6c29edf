// The reCAPTCHA v2 stand-in (embedded/captcha) answers siteverify as contract §6 describes: Google's test
// secret passes any response; other secrets take only tokens it issued, once, within 2 minutes; the
// error codes of missing input; and it can be told to fail.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startCaptchaStandIn, TEST_SECRET_KEY, type CaptchaStandIn } from '../../../embedded/captcha/index.ts';

let now = 1_767_000_000_000;
let captcha: CaptchaStandIn;
beforeAll(async () => {
  captcha = await startCaptchaStandIn({ now: () => now });
});
afterAll(() => captcha?.close());

async function verify(form: Record<string, string>) {
  const answer = await fetch(captcha.verifyUrl, { method: 'POST', body: new URLSearchParams(form) });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { success: boolean; challenge_ts?: string; hostname?: string; 'error-codes'?: string[] };
}

describe('siteverify', () => {
  test("Google's test secret passes any response", async () => {
    expect(await verify({ secret: TEST_SECRET_KEY, response: 'anything at all' })).toMatchObject({
      success: true,
      hostname: 'localhost',
      challenge_ts: new Date(now).toISOString(),
    });
  });

  test('another secret: an issued token once, then timeout-or-duplicate; an unknown one invalid-input-response', async () => {
    const token = captcha.issueToken();
    expect(await verify({ secret: 's', response: token, remoteip: '192.0.2.1' })).toMatchObject({ success: true });
    expect(await verify({ secret: 's', response: token })).toEqual({ success: false, 'error-codes': ['timeout-or-duplicate'] });
    expect(await verify({ secret: 's', response: 'made-up' })).toEqual({ success: false, 'error-codes': ['invalid-input-response'] });
    expect(captcha.verifications.find((v) => v.response === token)?.remoteip).toBe('192.0.2.1');
  });

  test('a token older than 2 minutes has expired', async () => {
    const token = captcha.issueToken();
    now += 2 * 60 * 1000 + 1;
    expect(await verify({ secret: 's', response: token })).toEqual({ success: false, 'error-codes': ['timeout-or-duplicate'] });
  });

  test('missing input', async () => {
    expect(await verify({ response: 'x' })).toEqual({ success: false, 'error-codes': ['missing-input-secret'] });
    expect(await verify({ secret: 's' })).toEqual({ success: false, 'error-codes': ['missing-input-response'] });
  });

  test('told to fail, even the test secret fails, until told otherwise (also over HTTP)', async () => {
    captcha.fail(true);
    expect((await verify({ secret: TEST_SECRET_KEY, response: 'x' })).success).toBe(false);
    captcha.fail(false);
    expect((await verify({ secret: TEST_SECRET_KEY, response: 'x' })).success).toBe(true);
    await fetch(`${captcha.url}/__stand-in/mode`, { method: 'POST', body: new URLSearchParams({ mode: 'fail' }) });
    expect((await verify({ secret: TEST_SECRET_KEY, response: 'x' })).success).toBe(false);
    await fetch(`${captcha.url}/__stand-in/mode`, { method: 'POST', body: new URLSearchParams({ mode: 'pass' }) });
    expect((await verify({ secret: TEST_SECRET_KEY, response: 'x' })).success).toBe(true);
  });
});

describe('the browser side', () => {
  test('api.js, the widget frame and the JS-off fallback, which hands out a token that verifies', async () => {
    const script = await fetch(captcha.scriptUrl);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toContain('grecaptcha');
    expect(await (await fetch(`${captcha.url}/recaptcha/api2/anchor?k=key&w=0`)).text()).toContain("I'm not a robot");
    const page = await fetch(`${captcha.url}/recaptcha/api/fallback`, { method: 'POST', body: new URLSearchParams({ robot: '1' }) });
    const token = /id="fallback-token">([^<]+)</.exec(await page.text())![1]!;
    expect(await verify({ secret: 's', response: token })).toMatchObject({ success: true });
  });
});
