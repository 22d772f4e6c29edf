// The Kratos UI message catalogue (ids, types and default English texts), contract §17.
// The app translates by id; `text` must match Kratos's default English text exactly.

export type UiTextType = 'info' | 'error' | 'success';
export interface UiText {
  id: number;
  text: string;
  type: UiTextType;
  context?: Record<string, unknown>;
}

type Entry = [UiTextType, string | ((c: Record<string, unknown>) => string)];

const fmt2 = (n: unknown): string => Number(n).toFixed(2);

const catalogue: Record<number, Entry> = {
  // login
  1010001: ['info', 'Sign in'],
  1010002: ['info', (c) => `Sign in with ${c.provider}`],
  1010003: ['info', 'Please confirm this action by verifying that it is you.'],
  1010013: ['info', 'Continue'],
  1010016: [
    'info',
    (c) =>
      `You tried to sign in with ${JSON.stringify(c.duplicateIdentifier)}, but that email is already used by another account. Sign in to your account with one of the options below to add your account ${JSON.stringify(c.duplicateIdentifier)} at ${JSON.stringify(c.provider)} as another way to sign in.`,
  ],
  1010017: ['info', 'Sign in and link'],
  1010018: ['info', (c) => `Confirm with ${c.provider}`],
  1010022: ['info', 'Sign in with password'],
  // registration
  1040001: ['info', 'Sign up'],
  1040002: ['info', (c) => `Sign up with ${c.provider}`],
  1040003: ['info', 'Continue'],
  1040008: ['info', 'Back'],
  1040009: ['info', 'Please choose a credential to authenticate yourself with.'],
  // settings
  1050001: ['success', 'Your changes have been saved!'],
  1050002: ['info', (c) => `Link ${c.provider}`],
  1050003: ['info', (c) => `Unlink ${c.provider}`],
  // recovery
  1060001: [
    'success',
    (c) =>
      `You successfully recovered your account. Please change your password or set up an alternative login method (e.g. social sign in) within the next ${fmt2(c.minutes)} minutes.`,
  ],
  1060002: [
    'info',
    'An email containing a recovery link has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  ],
  1060003: [
    'info',
    'An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  ],
  // labels
  1070001: ['info', 'Password'],
  1070002: ['info', (c) => String(c.title)],
  1070003: ['info', 'Save'],
  1070004: ['info', 'ID'],
  1070005: ['info', 'Submit'],
  1070007: ['info', 'Email'],
  1070008: ['info', 'Resend code'],
  1070009: ['info', 'Continue'],
  1070010: ['info', 'Recovery code'],
  1070011: ['info', 'Verification code'],
  // verification
  1080001: [
    'info',
    'An email containing a verification link has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  ],
  1080002: ['success', 'You successfully verified your email address.'],
  1080003: [
    'info',
    'An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.',
  ],
  // validation
  4000001: ['error', (c) => String(c.reason)],
  4000002: ['error', (c) => `Property ${c.property} is missing.`],
  4000003: ['error', (c) => `length must be >= ${c.min_length}, but got ${c.actual_length}`],
  4000004: ['error', (c) => `does not match pattern "${c.pattern}"`],
  4000006: ['error', 'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.'],
  4000007: ['error', 'An account with the same identifier (email, phone, username, ...) exists already.'],
  4000010: ['error', 'Account not active yet. Did you forget to verify your email address?'],
  4000017: ['error', (c) => `length must be <= ${c.max_length}, but got ${c.actual_length}`],
  4000026: ['error', (c) => `expected ${(c.allowed_types as string[]).join(' or ')}, but got ${c.actual_type}`],
  4000027: [
    'error',
    'An account with the same identifier (email, phone, username, ...) exists already. Please sign in to your existing account to link your social profile.',
  ],
  4000031: ['error', 'The password can not be used because it is too similar to the identifier.'],
  4000032: ['error', (c) => `The password must be at least ${c.min_length} characters long, but got ${c.actual_length}.`],
  4000033: ['error', (c) => `The password must be at most ${c.max_length} characters long, but got ${c.actual_length}.`],
  4000034: ['error', 'The password has been found in data breaches and must no longer be used.'],
  4000039: ['error', 'The new password must be different from the old password.'],
  4000040: ['error', 'Enter a valid email address'],
  // flow-level
  4010001: ['error', (c) => `The login flow expired ${fmt2(c.minutes)} minutes ago, please try again.`],
  4010002: ['error', 'Could not find a strategy to log you in with. Did you fill out the form correctly?'],
  4010003: ['error', 'Could not find a strategy to sign you up with. Did you fill out the form correctly?'],
  4010004: ['error', 'Could not find a strategy to update your settings. Did you fill out the form correctly?'],
  4010005: ['error', 'Could not find a strategy to recover your account with. Did you fill out the form correctly?'],
  4010006: ['error', 'Could not find a strategy to verify your account with. Did you fill out the form correctly?'],
  4010009: ['error', 'Linked credentials do not match.'],
  4010011: ['error', 'This account has been disabled. Please contact support for assistance.'],
  4040001: ['error', (c) => `The registration flow expired ${fmt2(c.minutes)} minutes ago, please try again.`],
  4050001: ['error', (c) => `The settings flow expired ${fmt2(c.minutes)} minutes ago, please try again.`],
  4060001: ['error', 'The request was already completed successfully and can not be retried.'],
  4060004: ['error', 'The recovery token is invalid or has already been used. Please retry the flow.'],
  4060005: ['error', (c) => `The recovery flow expired ${fmt2(c.minutes)} minutes ago, please try again.`],
  4060006: ['error', 'The recovery code is invalid or has already been used. Please try again.'],
  4070001: ['error', 'The verification token is invalid or has already been used. Please retry the flow.'],
  4070002: ['error', 'The request was already completed successfully and can not be retried.'],
  4070005: ['error', (c) => `The verification flow expired ${fmt2(c.minutes)} minutes ago, please try again.`],
  4070006: ['error', 'The verification code is invalid or has already been used. Please try again.'],
};

/** Builds a uiText; `context` is what Kratos emits (keys sorted); `vars` only feed the text. */
export function msg(id: number, context?: Record<string, unknown>, vars?: Record<string, unknown>): UiText {
  const entry = catalogue[id];
  if (!entry) throw new Error(`unknown message id ${id}`);
  const [type, t] = entry;
  const text = typeof t === 'function' ? t({ ...(context ?? {}), ...(vars ?? {}) }) : t;
  const out: UiText = { id, text, type };
  if (context && Object.keys(context).length > 0) {
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(context).sort()) sorted[k] = context[k];
    out.context = sorted;
  }
  return out;
}

/** 40x0001-style "flow expired" messages. */
export function expiredMessage(id: number, expiredAt: Date, now: number): UiText {
  const minutes = (now - expiredAt.getTime()) / 60000;
  return msg(id, { expired_at: expiredAt.toISOString(), expired_at_unix: Math.floor(expiredAt.getTime() / 1000) }, { minutes });
}

export function reasonMessage(reason: string): UiText {
  return msg(4000001, { reason });
}
