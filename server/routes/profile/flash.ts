// One-time notices carried across a 303 (post → redirect → get) in our own server-side session:
// the 'setting saved' toast, "password changed" or "set", "account scheduled for deletion". Only message keys
// and harmless values are stored, never a password or a token.
import type { Request } from 'express';

export type ProfileFlash = {
  /** Translation keys of toasts to show once, with their variant. */
  toasts?: { key: string; variant: 'success' | 'error' | 'info' | 'warning'; params?: Record<string, string | number> }[];
  /** The password section says once that the password was just changed, or set for the first time. */
  passwordSaved?: 'changed' | 'set';
  /** After re-authentication: tell the user to submit the change again. */
  reauthenticatedFor?: string;
  /** Shown on the account-deleted notice. */
  deletion?: { scheduledAt: string | null; graceDays: number };
};

declare module 'express-session' {
  interface SessionData {
    profileFlash?: ProfileFlash;
  }
}

export function addFlash(req: Request, flash: ProfileFlash): void {
  if (!req.session) return;
  const current = req.session.profileFlash ?? {};
  req.session.profileFlash = {
    ...current,
    ...flash,
    toasts: [...(current.toasts ?? []), ...(flash.toasts ?? [])],
  };
}

/** Reads and clears the notices. */
export function takeFlash(req: Request): ProfileFlash {
  if (!req.session) return {};
  const flash = req.session.profileFlash ?? {};
  if (req.session.profileFlash) delete req.session.profileFlash;
  return flash;
}

/** Drops one notice that no longer applies (the "make your change again" after a change that went on by itself). */
export function dropFlash(req: Request, key: keyof ProfileFlash): void {
  if (req.session?.profileFlash) delete req.session.profileFlash[key];
}
