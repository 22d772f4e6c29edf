/**
 * reCAPTCHA v2 (spec §5, §8; decision 170): on while RECAPTCHA_SITE_KEY and RECAPTCHA_SECRET_KEY are set.
 * The token the widget put in `g-recaptcha-response` is checked with siteverify (RECAPTCHA_VERIFY_URL,
 * within RECAPTCHA_TIMEOUT_MS) before Kratos hears of the submission. An unreachable or late siteverify
 * counts as a failure: letting sign-ups through unchecked whenever Google is slow would make the check
 * optional for anyone who can slow it. The token and the secret are never logged.
 */
import type { Request } from 'express';
import type { Config } from '../config.ts';

export const RECAPTCHA_FIELD = 'g-recaptcha-response';
export const RECAPTCHA_FAILED = { code: 'recaptcha_v2_validation_failed', key: 'errorMessage.verifyRecaptchaFailed' } as const;

export const captchaEnabled = (config: Config): boolean => Boolean(config.RECAPTCHA_SITE_KEY && config.RECAPTCHA_SECRET_KEY);

/** What the views need to show the widget; undefined when the captcha is off. */
export function captchaWidget(config: Config): { siteKey: string; scriptUrl: string; fallbackUrl: string } | undefined {
  if (!captchaEnabled(config)) return undefined;
  const fallback = new URL('/recaptcha/api/fallback', config.RECAPTCHA_SCRIPT_URL);
  fallback.searchParams.set('k', config.RECAPTCHA_SITE_KEY);
  return { siteKey: config.RECAPTCHA_SITE_KEY, scriptUrl: config.RECAPTCHA_SCRIPT_URL, fallbackUrl: fallback.toString() };
}

/** True when siteverify says the request's token is good. */
export async function verifyRecaptcha(req: Request, config: Config): Promise<boolean> {
  const posted = (req.body as Record<string, unknown> | undefined)?.[RECAPTCHA_FIELD];
  // Two fields may come (the widget's and an empty JS-off one from a swapped-in form): the first filled.
  const token = Array.isArray(posted) ? posted.find((value) => typeof value === 'string' && value !== '') : posted;
  if (typeof token !== 'string' || token.length === 0 || token.length > 4096) {
    req.log?.info({ cause: 'missing-input-response' }, 'recaptcha refused');
    return false;
  }
  const form = new URLSearchParams({ secret: config.RECAPTCHA_SECRET_KEY, response: token });
  if (req.ip) form.set('remoteip', req.ip);
  try {
    const answer = await fetch(config.RECAPTCHA_VERIFY_URL, {
      method: 'POST',
      body: form,
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(config.RECAPTCHA_TIMEOUT_MS),
      redirect: 'manual',
    });
    const body = (await answer.json()) as { success?: unknown; 'error-codes'?: unknown };
    if (body.success === true) return true;
    const reasons = Array.isArray(body['error-codes']) ? body['error-codes'].filter((code) => typeof code === 'string').slice(0, 5) : [];
    req.log?.info({ cause: reasons.join(',') || `status ${answer.status}` }, 'recaptcha refused');
  } catch (error) {
    req.log?.warn({ cause: (error as Error).name === 'TimeoutError' ? 'timeout' : 'unreachable' }, 'recaptcha siteverify unavailable: refused');
  }
  return false;
}
