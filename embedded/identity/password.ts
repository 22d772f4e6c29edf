// Password hashing (argon2id through Node 24's crypto.argon2, PHC string format like Kratos) and the
// password policy: length, similarity to the identifier (4000031), breached list (4000034).
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { msg, type UiText } from './messages.ts';

export interface Argon2Params {
  memory: number;
  iterations: number;
  parallelism: number;
  key_length: number;
  salt_length: number;
}

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

function run(message: string, nonce: Buffer, memory: number, passes: number, parallelism: number, tagLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    argon2('argon2id', { message, nonce, memory, passes, parallelism, tagLength }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string, p: Argon2Params): Promise<string> {
  const salt = randomBytes(p.salt_length);
  const key = await run(password, salt, p.memory, p.iterations, p.parallelism, p.key_length);
  return `$argon2id$v=19$m=${p.memory},t=${p.iterations},p=${p.parallelism}$${b64(salt)}$${b64(key)}`;
}

export async function verifyPassword(password: string, phc: string): Promise<boolean> {
  const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(phc);
  if (!m) return false;
  const salt = Buffer.from(m[4]!, 'base64');
  const expected = Buffer.from(m[5]!, 'base64');
  try {
    const key = await run(password, salt, Number(m[1]), Number(m[2]), Number(m[3]), expected.length);
    return key.length === expected.length && timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

let breached: Set<string> | undefined;
export function breachedPasswords(): Set<string> {
  if (!breached) {
    const text = readFileSync(new URL('./data/breached-passwords.txt', import.meta.url), 'utf8');
    breached = new Set(
      text
        .split('\n')
        .map((l) => l.replace(/\r$/, ''))
        .filter((l) => l && !l.startsWith('#')),
    );
  }
  return breached;
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

function longestCommonSubstring(a: string, b: string): number {
  let best = 0;
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : 0;
      if (row[j]! > best) best = row[j]!;
      diag = tmp;
    }
  }
  return best;
}

export interface PolicyConfig {
  min_password_length: number;
  max_password_length: number;
  identifier_similarity_check_enabled: boolean;
  haveibeenpwned_enabled: boolean;
}

/** Kratos DefaultPasswordValidator order: min length, max length, similarity, breaches. */
export function checkPassword(password: string, identifier: string, c: PolicyConfig): UiText | undefined {
  const len = Buffer.byteLength(password, 'utf8');
  if (len < c.min_password_length) return msg(4000032, { actual_length: len, min_length: c.min_password_length });
  if (len > c.max_password_length) return msg(4000033, { actual_length: len, max_length: c.max_password_length });
  if (c.identifier_similarity_check_enabled && identifier) {
    const id = identifier.toLowerCase();
    const pw = password.toLowerCase();
    const dist = levenshtein(id, pw);
    const lcs = longestCommonSubstring(id, pw) / pw.length;
    if (dist < 5 || lcs > 0.5) return msg(4000031);
  }
  if (c.haveibeenpwned_enabled && breachedPasswords().has(password)) return msg(4000034, { breaches: 1 });
  return undefined;
}
