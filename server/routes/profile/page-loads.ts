// GET /profile-settings needs three answers once Kratos has named the session (whoami): the backend's
// user record, the settings flow and the identity's account facts (admin API). None needs another's, so
// they start together (issue #17 item 5) instead of one after another; each keeps its own deadline.
//
// The flow and the facts are started by `withUser` next to the user lookup, and handed over later: the
// flow to the runner through the screen's `load` hook, the facts through `loadAccountFacts`'s per-request
// promise. Concurrent Kratos calls share the request's cookie jar: each sends the browser's cookies as they
// came, and Set-Cookie answers are relayed as they arrive (a new flow's csrf cookie, nothing that the
// backend's session lookup depends on).
import type { Request, Response } from 'express';
import { loadFlow, type LoadedFlow } from '../../flows/kratos.ts';
import { loadAccountFacts } from './account-facts.ts';

type EarlyFlow = { id: unknown; flow: Promise<LoadedFlow> };

function settingsFlow(req: Request, res: Response, id: unknown): Promise<LoadedFlow> {
  return loadFlow(req, res, 'settings', id, {});
}

/** Starts the settings flow (the one `?flow=` names, else a new one) and the account facts, without waiting. */
export function startPageLoads(req: Request, res: Response): void {
  const flow = settingsFlow(req, res, req.query.flow);
  // Awaited later (or settled by `settlePageLoads`); a failure surfaces there, not as an unhandled rejection now.
  flow.catch(() => undefined);
  res.locals.earlySettingsFlow = { id: req.query.flow, flow } satisfies EarlyFlow;
  void loadAccountFacts(req, res);
}

/** The runner's `load` hook: the flow started early when it is the one asked for, else a load now. */
export function takeSettingsFlow(req: Request, res: Response, id: unknown): Promise<LoadedFlow> {
  const early = res.locals.earlySettingsFlow as EarlyFlow | undefined;
  delete res.locals.earlySettingsFlow;
  return early && early.id === id ? early.flow : settingsFlow(req, res, id);
}

/**
 * Before answering without the page (signed out, pending deletion): the started calls finish first, so
 * none relays a cookie after the answer has gone. For that rare case a settings flow may have been created
 * needlessly (Kratos forgets it when it expires); the common case saves a round trip.
 */
export async function settlePageLoads(res: Response): Promise<void> {
  const early = res.locals.earlySettingsFlow as EarlyFlow | undefined;
  delete res.locals.earlySettingsFlow;
  await Promise.allSettled([early?.flow, res.locals.accountFactsLoad]);
}
