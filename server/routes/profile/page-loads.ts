// /profile-settings needs several answers once Kratos has named the session (whoami), none of which needs
// another's, so they start together (issue #17 item 5) instead of one after another; each keeps its own
// deadline.
//   GET   the backend's user record, the settings flow (`?flow=`, else a new one) and the account facts
//         (admin API) that the page shows.
//   POST  the user record and the submitted flow as Kratos has it (the body is built from it), and for a
//         password post the account facts (whether this is a first password or a change).
//
// The flow and the facts are started by `withUser` next to the user lookup, and handed over later: the
// flow to the runner through the screen's `load` (GET) or `submitted` (POST) hook, the facts through
// `loadAccountFacts`'s per-request promise. Concurrent Kratos calls share the request's cookie jar: each
// sends the browser's cookies as they came, and Set-Cookie answers are relayed as they arrive (a new flow's
// csrf cookie, nothing that the backend's session lookup depends on).
import type { Request, Response } from 'express';
import type { KratosFlow } from '../../../core/kratos/types.ts';
import { getFlow, loadFlow, type KratosAnswer, type LoadedFlow } from '../../flows/kratos.ts';
import { loadAccountFacts } from './account-facts.ts';
import { settingsMethodOf } from './settings-body.ts';

type EarlyFlow = { id: unknown; flow: Promise<LoadedFlow> };
type EarlySubmitted = { id: string; flow: Promise<KratosAnswer<KratosFlow>> };

function settingsFlow(req: Request, res: Response, id: unknown): Promise<LoadedFlow> {
  return loadFlow(req, res, 'settings', id, {});
}

/** Awaited later (or settled by `settlePageLoads`): a failure surfaces there, not as an unhandled rejection now. */
function started<T>(call: Promise<T>): Promise<T> {
  call.catch(() => undefined);
  return call;
}

/** GET: starts the settings flow (the one `?flow=` names, else a new one) and the account facts, without waiting. */
export function startPageLoads(req: Request, res: Response): void {
  res.locals.earlySettingsFlow = { id: req.query.flow, flow: started(settingsFlow(req, res, req.query.flow)) } satisfies EarlyFlow;
  void loadAccountFacts(req, res);
}

/** POST to flow `flowId`: starts reading that flow, and the account facts when the post sets a password. */
export function startSubmitLoads(req: Request, res: Response, flowId: string): void {
  res.locals.earlySubmittedFlow = { id: flowId, flow: started(getFlow(req, res, 'settings', flowId)) } satisfies EarlySubmitted;
  if (settingsMethodOf((req.body ?? {}) as Record<string, unknown>) === 'password') void loadAccountFacts(req, res);
}

/** The runner's `load` hook: the flow started early when it is the one asked for, else a load now. */
export function takeSettingsFlow(req: Request, res: Response, id: unknown): Promise<LoadedFlow> {
  const early = res.locals.earlySettingsFlow as EarlyFlow | undefined;
  delete res.locals.earlySettingsFlow;
  return early && early.id === id ? early.flow : settingsFlow(req, res, id);
}

/** The runner's `submitted` hook: the submitted flow read early when it is the one asked for, else a read now. */
export function takeSubmittedFlow(req: Request, res: Response, id: string): Promise<KratosAnswer<KratosFlow>> {
  const early = res.locals.earlySubmittedFlow as EarlySubmitted | undefined;
  delete res.locals.earlySubmittedFlow;
  return early && early.id === id ? early.flow : getFlow(req, res, 'settings', id);
}

/**
 * Before answering without the page or the submit (signed out, pending deletion): the started calls finish
 * first, so none relays a cookie after the answer has gone. For that rare case a settings flow may have
 * been created or read needlessly (Kratos forgets a new one when it expires); the common case saves a
 * round trip.
 */
export async function settlePageLoads(res: Response): Promise<void> {
  const early = res.locals.earlySettingsFlow as EarlyFlow | undefined;
  const submitted = res.locals.earlySubmittedFlow as EarlySubmitted | undefined;
  delete res.locals.earlySettingsFlow;
  delete res.locals.earlySubmittedFlow;
  await Promise.allSettled([early?.flow, submitted?.flow, res.locals.accountFactsLoad]);
}
