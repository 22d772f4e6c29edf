/**
 * "Known device" cookie (decision 031, issue 10 #5): a browser that has signed in to an account with
 * its password is recognised the next time, so strangers guessing that account's password from
 * elsewhere cannot lock its owner out (server/security/rate-limit.ts counts such a device apart).
 *
 *   rememberKnownDevice(req, res, identifier)   after a successful password sign-in: adds the account
 *   knownDeviceId(req, identifier)              the device's id when its cookie is genuine and lists
 *                                               that account, else undefined
 *
 * The cookie (`known_device`, `__Host-known_device` in production; HttpOnly, SameSite=Lax, 180 days)
 * holds a random device id and up to 5 account tags, HMAC-signed with a key derived from
 * SESSION_SECRET. A tag is an HMAC of the normalised address, so the cookie never shows an address and
 * cannot be forged or extended to another account without the secret. Nothing is stored server-side.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { AppLocals } from '../locals.ts';

const MAX_ACCOUNTS = 5;
const MAX_COOKIE_LENGTH = 512;
const DEVICE_TTL_MS = 180 * 24 * 60 * 60 * 1000;

type Device = { d: string; a: string[] };
type Secretful = { SESSION_SECRET: string; isProduction: boolean };

export function knownDeviceCookieName(config: Pick<Secretful, 'isProduction'>): string {
  return config.isProduction ? '__Host-known_device' : 'known_device';
}

const keys = new Map<string, Buffer>();
function keyOf(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = createHmac('sha256', secret).update('accounts known-device v1').digest();
    keys.set(secret, key);
  }
  return key;
}

const mac = (secret: string, text: string) => createHmac('sha256', keyOf(secret)).update(text).digest('base64url');
const accountTag = (secret: string, normalisedEmail: string) => mac(secret, `account:${normalisedEmail}`).slice(0, 22);

function configOf(req: Request): Secretful | undefined {
  return (req.app?.locals as AppLocals | undefined)?.config;
}

function readDevice(req: Request, config: Secretful): Device | undefined {
  const raw = (req.cookies as Record<string, unknown> | undefined)?.[knownDeviceCookieName(config)];
  if (typeof raw !== 'string' || raw.length > MAX_COOKIE_LENGTH) return undefined;
  const [payload = '', signature = ''] = raw.split('.');
  const expected = Buffer.from(mac(config.SESSION_SECRET, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const device = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Device>;
    if (typeof device.d !== 'string' || !Array.isArray(device.a) || !device.a.every((tag) => typeof tag === 'string')) return undefined;
    return { d: device.d, a: device.a.slice(0, MAX_ACCOUNTS) };
  } catch {
    return undefined;
  }
}

/** The device id, when this browser's genuine cookie lists the (normalised) account. */
export function knownDeviceId(req: Request, normalisedEmail: string): string | undefined {
  const config = configOf(req);
  if (!config) return undefined;
  const device = readDevice(req, config);
  return device?.a.includes(accountTag(config.SESSION_SECRET, normalisedEmail)) ? device.d : undefined;
}

/** Marks this browser as one the account's owner signed in from (most recent account first). */
export function rememberKnownDevice(req: Request, res: Response, normalisedEmail: string): void {
  const config = configOf(req);
  if (!config || !normalisedEmail) return;
  const existing = readDevice(req, config);
  const tag = accountTag(config.SESSION_SECRET, normalisedEmail);
  const device: Device = {
    d: existing?.d ?? randomBytes(16).toString('base64url'),
    a: [tag, ...(existing?.a ?? []).filter((other) => other !== tag)].slice(0, MAX_ACCOUNTS),
  };
  const payload = Buffer.from(JSON.stringify(device)).toString('base64url');
  res.cookie(knownDeviceCookieName(config), `${payload}.${mac(config.SESSION_SECRET, payload)}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.isProduction,
    path: '/',
    maxAge: DEVICE_TTL_MS,
  });
}
