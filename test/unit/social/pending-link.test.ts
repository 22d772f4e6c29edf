// The rules of an account link confirmed with a provider (server/flows/pending-link.ts, decision 110 §7)
// that the HTTP journeys cannot reach: a note past Kratos's continuity lifespan, a sign-in as another
// identity, requests that are not a page navigation, and the cost without a note (no upstream call).
import type { Request, Response } from 'express';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { KratosSession } from '../../../core/kratos/types.ts';

vi.mock('../../../server/flows/account-link.ts', () => ({ confirmLinkedAccount: vi.fn(), existingAccount: vi.fn() }));
const { confirmLinkedAccount } = await import('../../../server/flows/account-link.ts');
const { finishPendingLink, PENDING_LINK_LIFESPAN_MS } = await import('../../../server/flows/pending-link.ts');
const confirm = vi.mocked(confirmLinkedAccount);

const ADA = 'ada-identity';
type Pending = NonNullable<Request['session']['pendingLink']>;
const note = (changes: Partial<Pending> = {}): Pending => ({
  provider: 'google',
  email: 'ada@example.com',
  identityId: ADA,
  before: ['microsoft'],
  flowId: 'flow-1',
  at: Date.now(),
  ...changes,
});

/** A request as Express gives it: method, query, headers, and our session (when the browser has one). */
function request(options: { pending?: Pending; method?: string; query?: Record<string, string>; json?: boolean; noSession?: boolean } = {}) {
  const headers: Record<string, string> = options.json ? { accept: 'application/json' } : { accept: 'text/html' };
  return {
    method: options.method ?? 'GET',
    query: options.query ?? {},
    headers,
    accepts: (types: string[]) => (options.json ? 'json' : types[0]),
    session: options.noSession ? undefined : { ...(options.pending ? { pendingLink: options.pending } : {}) },
  } as unknown as Request;
}

const res = {} as Response;
const signedInAs = (id: string) => ({ id: 'session', identity: { id, traits: { email: 'ada@example.com' } } }) as unknown as KratosSession;

beforeEach(() => {
  confirm.mockReset();
  confirm.mockResolvedValue('google');
});

describe('finishPendingLink', () => {
  it('nothing noted (or no session at all): nothing happens, no upstream call', async () => {
    expect(await finishPendingLink(request(), res, signedInAs(ADA), '/')).toBeUndefined();
    expect(await finishPendingLink(request({ noSession: true }), res, signedInAs(ADA), '/')).toBeUndefined();
    expect(confirm).not.toHaveBeenCalled();
  });

  it('the owner of the e-mail lands signed in: the backend is told with what the account had before, then the notice and on to where it was going', async () => {
    const req = request({ pending: note() });
    expect(await finishPendingLink(req, res, signedInAs(ADA), 'https://accounts.example.com/profile-settings')).toBe(
      '/sign-in/linked?provider=google&return_to=https%3A%2F%2Faccounts.example.com%2Fprofile-settings',
    );
    expect(confirm).toHaveBeenCalledWith(req, res, signedInAs(ADA), 'google', ['microsoft']);
    expect(req.session.pendingLink).toBeUndefined();
  });

  it('nothing gained since the note (a plain sign-in): forgotten, no notice', async () => {
    confirm.mockResolvedValue(undefined);
    const req = request({ pending: note() });
    expect(await finishPendingLink(req, res, signedInAs(ADA), '/')).toBeUndefined();
    expect(req.session.pendingLink).toBeUndefined();
  });

  it('another identity signed in, or a note older than Kratos’s continuity: forgotten, nothing asked', async () => {
    const other = request({ pending: note() });
    expect(await finishPendingLink(other, res, signedInAs('bob-identity'), '/')).toBeUndefined();
    expect(other.session.pendingLink).toBeUndefined();
    const old = request({ pending: note({ at: Date.now() - PENDING_LINK_LIFESPAN_MS - 1 }) });
    expect(await finishPendingLink(old, res, signedInAs(ADA), '/')).toBeUndefined();
    expect(old.session.pendingLink).toBeUndefined();
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a guest back on the same flow (a cancel or a wrong account at the provider) forgets it; elsewhere, or while at the provider, it is kept', async () => {
    const back = request({ pending: note(), query: { flow: 'flow-1' } });
    expect(await finishPendingLink(back, res, null, '/')).toBeUndefined();
    expect(back.session.pendingLink).toBeUndefined();
    const elsewhere = request({ pending: note(), query: { flow: 'another-flow' } });
    expect(await finishPendingLink(elsewhere, res, null, '/')).toBeUndefined();
    expect(elsewhere.session.pendingLink).toBeDefined();
  });

  it('not a page navigation (a post, JSON): left for the landing, nothing asked', async () => {
    for (const req of [request({ pending: note(), method: 'POST' }), request({ pending: note(), json: true })]) {
      expect(await finishPendingLink(req, res, signedInAs(ADA), '/')).toBeUndefined();
      expect(req.session.pendingLink).toBeDefined();
    }
    expect(confirm).not.toHaveBeenCalled();
  });
});
