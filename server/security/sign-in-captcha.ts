/**
 * When sign-in asks for the captcha (decision 170): once SIGN_IN_CAPTCHA_AFTER_FAILURES sign-ins have
 * failed within 15 minutes from one IP address, or for one address typed, the sign-in form shows the
 * reCAPTCHA widget and a password sign-in from that IP or for that address needs a good token, until a
 * success from there clears the count or the window passes. Only while the captcha is configured.
 *
 * Counts are kept in this process's memory (keys are SHA-256 digests, never an address), up to 50,000
 * keys, oldest dropped first: with several instances each counts its own share, so the captcha comes a few
 * failures later at worst; the rate limits (decision 031) remain the hard stop.
 */
import { createHash } from 'node:crypto';
import type { Request } from 'express';
import type { Config } from '../config.ts';
import { normaliseEmail } from './rate-limit.ts';
import { captchaEnabled } from './recaptcha.ts';

const WINDOW_MS = 15 * 60 * 1000;
const MAX_KEYS = 50_000;
const failures = new Map<string, { count: number; since: number }>();

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

function keysOf(req: Request, identifier: string | undefined): string[] {
  const keys = [`ip:${digest(req.ip ?? '')}`];
  if (identifier && identifier.trim() !== '') keys.push(`id:${digest(normaliseEmail(identifier))}`);
  return keys;
}

function countOf(key: string, now: number): number {
  const entry = failures.get(key);
  if (!entry) return 0;
  if (now - entry.since > WINDOW_MS) {
    failures.delete(key);
    return 0;
  }
  return entry.count;
}

/** A refused sign-in from this request (wrong password, unknown address, a failed captcha). */
export function noteSignInFailure(req: Request, config: Config, identifier: string | undefined, now = Date.now()): void {
  if (config.SIGN_IN_CAPTCHA_AFTER_FAILURES === 0 || !captchaEnabled(config)) return; // nothing to count for
  for (const key of keysOf(req, identifier)) {
    const count = countOf(key, now);
    if (count === 0 && failures.size >= MAX_KEYS) failures.delete(failures.keys().next().value as string);
    failures.set(key, { count: count + 1, since: count === 0 ? now : failures.get(key)!.since });
  }
}

/** A sign-in that worked: its IP and address start again from nothing. */
export function clearSignInFailures(req: Request, identifier: string | undefined): void {
  for (const key of keysOf(req, identifier)) failures.delete(key);
}

/** Does a sign-in from this request (for this address, when typed) need the captcha now? */
export function signInNeedsCaptcha(req: Request, config: Config, identifier: string | undefined, now = Date.now()): boolean {
  const threshold = config.SIGN_IN_CAPTCHA_AFTER_FAILURES;
  if (threshold === 0 || !captchaEnabled(config)) return false;
  return keysOf(req, identifier).some((key) => countOf(key, now) >= threshold);
}
