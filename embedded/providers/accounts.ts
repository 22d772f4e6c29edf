// The test accounts of one embedded provider. Subjects are derived from the provider and the e-mail
// address, so an account keeps its subject across restarts: the identity stand-in's database under
// `npm start` links `<provider>:<sub>` and must find it again after the providers restart.
import { createHash } from 'node:crypto';

export type ProviderId = 'google' | 'microsoft' | 'dropbox' | 'apple';
export const PROVIDER_IDS: readonly ProviderId[] = ['google', 'microsoft', 'dropbox', 'apple'];

export interface ProviderAccount {
  /** The provider-shaped subject: also oidc-provider's accountId (it always puts accountId in `sub`). */
  sub: string;
  email: string;
  name: string;
  emailVerified: boolean;
  /** Google Workspace domain (`hd` claim). */
  hd?: string;
  /** Apple: the address is a private relay address (`is_private_email`). */
  privateEmail?: boolean;
  /** Microsoft: the object id in the tenant (`oid` claim). */
  oid?: string;
}

export interface NewAccount {
  email: string;
  name?: string;
  emailVerified?: boolean;
  hd?: string;
  privateEmail?: boolean;
}

const digest = (id: ProviderId, email: string) => createHash('sha256').update(`${id}\n${email.toLowerCase()}`).digest();

/** The subject as each provider shapes it. */
export function subjectFor(id: ProviderId, email: string): string {
  const d = digest(id, email);
  switch (id) {
    case 'google':
      // Google: a decimal number of 21 digits.
      return `1${d.readBigUInt64BE(0).toString().padStart(20, '0').slice(0, 20)}`;
    case 'microsoft':
      // Microsoft: an opaque pairwise string (43 characters, base64url).
      return d.toString('base64url').slice(0, 43);
    case 'dropbox':
      // Dropbox: `dbid:` and the account id.
      return `dbid:AA${d.toString('base64url').slice(0, 40)}`;
    case 'apple':
      // Apple: team-scoped `000123.<32 hex>.1234`.
      return `000${d.readUInt16BE(0) % 1000}`.slice(-6) + `.${d.subarray(2, 18).toString('hex')}.${String(d.readUInt16BE(18) % 10000).padStart(4, '0')}`;
  }
}

function uuidFrom(bytes: Buffer): string {
  const h = bytes.subarray(0, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A readable name from an address when none is given ("ada.lovelace@…" → "Ada Lovelace"). */
function nameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? email;
  return local
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join(' ');
}

export class AccountStore {
  readonly #id: ProviderId;
  readonly #bySub = new Map<string, ProviderAccount>();

  constructor(id: ProviderId, seed: readonly NewAccount[]) {
    this.#id = id;
    for (const account of seed) this.add(account);
  }

  /** Adds an account, or updates the one with the same address (its subject stays). */
  add(input: NewAccount): ProviderAccount {
    const email = input.email.trim();
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new Error(`not an e-mail address: ${JSON.stringify(input.email)}`);
    const sub = subjectFor(this.#id, email);
    const account: ProviderAccount = {
      sub,
      email,
      name: input.name?.trim() || nameFromEmail(email),
      emailVerified: input.emailVerified ?? true,
      ...(input.hd ? { hd: input.hd } : {}),
      ...(this.#id === 'apple' ? { privateEmail: input.privateEmail ?? email.endsWith('@privaterelay.appleid.com') } : {}),
      ...(this.#id === 'microsoft' ? { oid: uuidFrom(digest(this.#id, `oid:${email}`)) } : {}),
    };
    this.#bySub.set(sub, account);
    return account;
  }

  bySub(sub: string): ProviderAccount | undefined {
    return this.#bySub.get(sub);
  }

  byEmail(email: string): ProviderAccount | undefined {
    const wanted = email.trim().toLowerCase();
    return this.list().find((a) => a.email.toLowerCase() === wanted);
  }

  list(): ProviderAccount[] {
    return [...this.#bySub.values()];
  }
}
