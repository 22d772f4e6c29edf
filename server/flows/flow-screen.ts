/**
 * The flow-screen runner. A screen on a Kratos browser flow (sign-in, sign-up, recovery, reset,
 * verification, resend) is a `FlowScreen`: a small description of what is its own (paths, body schema,
 * view, the Kratos body, what success means). `flowScreenRoutes(screen)` serves it and owns everything
 * the screens share, once:
 *
 *   GET   load the flow (`?flow=`) or create one and show it at once, its address in the form's action and,
 *         with JS, the address bar (server/flows/flow-screen-show.ts, decision 190);
 *         a signed-in browser on a guest screen → on to return_to
 *   POST  parse the body; a bad body or flow id → the form again (400) with the errors where they show;
 *         otherwise submit to Kratos and answer its outcome:
 *           success            → `screen.onSuccess`
 *           flow (200 or 400)  → a replaced flow: 410 (JSON) or on to it; errors: the form again (400);
 *                                otherwise the next state, shown with a GET (JSON: the flow)
 *           expired/foreign/missing flow → a replacement, keeping what was typed, saying why
 *           location (422)     → the browser goes where Kratos says (`screen.onLocation` to change it)
 *           already signed in  → return_to (`screen.onSignedIn`)
 *           anything else      → the translated error (`screen.onError`)
 *
 * Every answer goes out three ways (server/flows/respond.ts): a page, an enhanced-form fragment, JSON.
 * The hooks a screen may set are listed on the type; each defaults to the behaviour above.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { ReactElement } from 'react';
import type { z } from 'zod';
import { AppError, ERROR_CODES } from '../../core/errors.ts';
import { flowHasErrors, mapIdentityProviderError } from '../../core/kratos/messages.ts';
import type { FlowKind, KratosFlow } from '../../core/kratos/types.ts';
import type { Translate } from '../../core/translate.ts';
import type { Config } from '../config.ts';
import { configOf, translator } from '../request-context.ts';
import { authRateLimit, type RateLimitScope } from '../security/rate-limit.ts';
import { startTimer, waitForFloor } from '../security/uniform-timing.ts';
import { documentFlowScreen, type FlowScreenDocs } from './flow-screen-docs.ts';
import { flowErrorJson, splitFieldErrors, visibleFieldNames } from './form-answers.ts';
import { prefillFlow, replacementFlow, restartNotice, withoutEarlierErrors } from './flow-replacement.ts';
import { flowParams, load, renderScreen, show, signedInTarget, withoutFlow, type Errors } from './flow-screen-show.ts';
import { classifySubmit, getFlow, isFlowId, submitFlow, type CreateFlowParams, type KratosAnswer, type LoadedFlow, type SubmitOutcome } from './kratos.ts';
import { screenQuery, withParams, type ScreenQuery } from './query.ts';
import { respondError, respondRedirect, responseMode } from './respond.ts';
import { echoedInput, parseBody } from './schemas.ts';

export { renderScreen };

/** One request to one screen: what every hook is given. */
export type ScreenRequest = {
  req: Request;
  res: Response;
  /** The address this request came to (a screen may answer at several). */
  path: string;
  query: ScreenQuery;
  t: Translate;
  config: Config;
  /** What was typed, to show again (never passwords or tokens). */
  input: Readonly<Record<string, string | undefined>>;
  /** Our form action for a flow: this address with the kept parameters and `flow`. */
  action(flowId: string): string;
  /** Another screen's address with this request's kept parameters. */
  link(path: string, extra?: Record<string, string | undefined>): string;
};

/** What a view is given: the flow to show, the status, and the form's props (our action, the flow's
 * nodes and messages, our errors translated) ready for `FlowForm`. */
export type ScreenState = {
  flow: KratosFlow;
  status: number;
  form: { action: string; ui: KratosFlow['ui']; fieldErrors: Record<string, string[]>; formErrors: string[] };
};

export type ScreenView = {
  title: string;
  page: () => ReactElement;
  fragment: () => ReactElement;
  /** Added to the JSON answer of a 2xx (`{ flow }`), e.g. `continue_to`. */
  jsonExtra?: Record<string, unknown>;
};

type Success = Extract<SubmitOutcome, { type: 'success' }>;
type Location = Extract<SubmitOutcome, { type: 'location' }>;
type Failure = Extract<SubmitOutcome, { type: 'error' }>;
type Awaitable<T> = T | Promise<T>;

export type FlowScreen<Body> = {
  kind: FlowKind;
  paths: readonly string[];
  /** The submissions' rate limit; a screen for signed-in users may have none. */
  rateLimit?: RateLimitScope;
  /** Middleware run before both GET and POST (after the rate limit): who may see the screen. */
  guards?: readonly RequestHandler[];
  body: z.ZodType<Body>;
  docs: FlowScreenDocs;
  view(screen: ScreenRequest, state: ScreenState): Awaitable<ScreenView>;
  /** The body Kratos gets for a valid submission (required unless `fromFlow` builds it). */
  toKratos?(body: Body, screen: ScreenRequest): Record<string, unknown>;
  /**
   * Instead of `toKratos`: the body built from the submitted flow as Kratos has it (loaded first; a gone,
   * expired or foreign one restarts, other failures go to `onError`). Null: refused, the screen answered.
   */
  fromFlow?(screen: ScreenRequest, flow: KratosFlow, body: Body): Awaitable<Record<string, unknown> | null>;
  /** With `fromFlow`: reads the submitted flow; defaults to `getFlow` (a screen may have started it alongside its other calls). */
  submitted?(screen: ScreenRequest, id: string): Promise<KratosAnswer<KratosFlow>>;
  onSuccess(screen: ScreenRequest, outcome: Success, body: Body): Awaitable<void>;
  /** Our own check before Kratos hears of a valid submission (reCAPTCHA, decision 170): a refusal is the form again, 400, with its code. */
  precheck?(screen: ScreenRequest, body: Body): Awaitable<{ code: string; key: string } | null>;

  /**
   * Parameters for creating a flow. By default the allow-listed return_to is handed to Kratos, so the
   * flows Kratos chains (verification after recovery…) carry it too.
   */
  flowParams?(screen: ScreenRequest): CreateFlowParams;
  /** Loads the flow to show; defaults to `loadFlow` (reuse while valid, else a new one). */
  load?(screen: ScreenRequest, id: unknown): Promise<LoadedFlow>;
  /** GET: somewhere else to send the browser before any flow is loaded (e.g. an emailed link's token). */
  redirectBeforeShow?(screen: ScreenRequest): string | undefined;
  /** GET: the address a newly created flow's page puts in the address bar (a reload reuses the flow); defaults to `action(flow.id)`. */
  newFlowAddress?(screen: ScreenRequest, flow: KratosFlow): string;
  /** GET: the status a loaded flow is shown with (default 200), e.g. a 4xx for a failure Kratos wrote into it. */
  showStatus?(flow: KratosFlow, screen: ScreenRequest): number;
  /** Shapes a flow before it is shown (narrowing nodes, filling a code from the address). */
  prepare?(flow: KratosFlow, screen: ScreenRequest): KratosFlow;
  /** Body fields the view shows although they are not flow nodes: their errors stay on the field. */
  ownFields?: readonly string[];
  /** Answers the same time for every submission this says yes to (anti-enumeration). */
  uniformTiming?(body: Body): boolean;
  /** A flow Kratos answered with: return true when handled, else the default answer follows. */
  onFlow?(screen: ScreenRequest, flow: KratosFlow, submittedId: string): Awaitable<boolean>;
  onLocation?(screen: ScreenRequest, outcome: Location, body: Body): Awaitable<void>;
  onSignedIn?(screen: ScreenRequest, outcome: Extract<SubmitOutcome, { type: 'signed_in' }>, submittedId: string): Awaitable<void>;
  onError?(screen: ScreenRequest, outcome: Failure): Awaitable<void>;
  /** An expired flow sends browsers straight to its replacement instead of showing the form again. */
  followExpiredFlow?: boolean;
  /** Browsers after a restart: answer the replacement flow (default: the form again, saying why). */
  onReplaced?(screen: ScreenRequest, flow: KratosFlow, outcome: Extract<SubmitOutcome, { type: 'expired' | 'csrf' | 'missing' }>): Awaitable<void>;
  /** No flow could be loaded or created (default: signed in → return_to, else the mapped error). */
  onNoFlow?(screen: ScreenRequest, failure: Extract<LoadedFlow, { ok: false }>): Awaitable<void>;
};

/** The screen request for `path` (also for handlers outside the runner that answer with a screen). */
export function screenRequest(req: Request, res: Response, path: string): ScreenRequest {
  const query = screenQuery(req, configOf(req));
  return {
    req,
    res,
    path,
    query,
    t: translator(req),
    config: configOf(req),
    input: req.method === 'POST' ? echoedInput(req.body) : {},
    action: (flowId) => withParams(path, query.kept, { flow: flowId }),
    link: (to, extra) => withParams(to, query.kept, extra),
  };
}

/** A body that did not parse, or no usable flow id: the form again with the errors where they show. */
async function refuseBody<Body>(def: FlowScreen<Body>, screen: ScreenRequest, errors: Required<Omit<Errors, 'code'>> & Pick<Errors, 'code'>) {
  const { req } = screen;
  const loaded = await load(def, screen, req.query.flow);
  if (!loaded.ok) return withoutFlow(def, screen, loaded);
  // The flow posted to carries Kratos's answer to the post before; a replacement's messages say why it replaced it.
  const flow = loaded.restarted ? loaded.flow : withoutEarlierErrors(loaded.flow);
  const shown = def.prepare ? def.prepare(flow, screen) : flow;
  const visible = new Set([...visibleFieldNames(shown), ...(def.ownFields ?? [])]);
  // Integrators get every field's errors by name (meta.fields), a hidden field's too; a page shows those on the form.
  const split = responseMode(req) === 'json' ? { fields: errors.fieldErrors, form: [] } : splitFieldErrors(errors.fieldErrors, visible);
  const notice = restartNotice(loaded.restarted);
  // The refusal first: a JSON answer's message is the first, and must say what its code says.
  const formErrors = [...errors.formErrors, ...split.form, ...(notice ? [notice] : [])];
  await renderScreen(def, screen, prefillFlow(flow, screen.input), 400, { fieldErrors: split.fields, formErrors, code: errors.code });
}

/** Kratos answered with a flow: replaced, refused, or moved on to its next state. */
async function answerFlow<Body>(def: FlowScreen<Body>, screen: ScreenRequest, flow: KratosFlow, submittedId: string) {
  const { req, res, t } = screen;
  if (def.onFlow && (await def.onFlow(screen, flow, submittedId))) return;
  const json = responseMode(req) === 'json';
  if (flow.id !== submittedId) {
    // Kratos replaced the flow (expired, too many attempts, a used code): the new one says why.
    if (json) return flowErrorJson(res, 410, mapIdentityProviderError(400, flow, t), def.prepare ? def.prepare(flow, screen) : flow, screen.action(flow.id));
    return respondRedirect(req, res, screen.action(flow.id));
  }
  if (flowHasErrors(flow)) return renderScreen(def, screen, prefillFlow(flow, screen.input), 400);
  // The next state (a sent code, the next step, done): integrators get it now, browsers with a GET.
  if (json) return renderScreen(def, screen, flow, 200);
  respondRedirect(req, res, screen.action(flow.id));
}

/** The submitted flow is gone, expired or from another browser: continue on a replacement. */
async function restart<Body>(def: FlowScreen<Body>, screen: ScreenRequest, outcome: Extract<SubmitOutcome, { type: 'expired' | 'csrf' | 'missing' }>) {
  const { req, res, t } = screen;
  const next = await replacementFlow(req, res, def.kind, outcome, flowParams(def, screen));
  if (!next.ok) return withoutFlow(def, screen, next);
  if (responseMode(req) === 'json') {
    const shown = def.prepare ? def.prepare(next.flow, screen) : next.flow;
    // Kratos's 404 names no error id and says it in English: the code and text the page shows instead,
    // unless it named what it refused (an unknown social provider is a 404 too: said as such, as the page does).
    const mapped = mapIdentityProviderError(outcome.status, outcome.body, t);
    const error =
      outcome.type === 'missing' && mapped.meta.socialFailure === undefined
        ? new AppError(outcome.status, ERROR_CODES.flowMissing, t('flowError.restartedMissing'))
        : mapped;
    return flowErrorJson(res, outcome.status, error, shown, screen.action(next.flow.id));
  }
  if (def.onReplaced) return def.onReplaced(screen, next.flow, outcome);
  if (def.followExpiredFlow && outcome.type === 'expired') return respondRedirect(req, res, screen.action(next.flow.id));
  const notice = restartNotice(next.restarted);
  await renderScreen(def, screen, prefillFlow(next.flow, screen.input), outcome.status, { formErrors: notice ? [notice] : [] });
}

async function answerOutcome<Body>(def: FlowScreen<Body>, screen: ScreenRequest, submittedId: string, outcome: SubmitOutcome, body: Body) {
  const { req, res, t } = screen;
  switch (outcome.type) {
    case 'success':
      return def.onSuccess(screen, outcome, body);
    case 'invalid':
      return answerFlow(def, screen, outcome.flow, submittedId);
    case 'expired':
    case 'csrf':
    case 'missing':
      return restart(def, screen, outcome);
    case 'location':
      if (def.onLocation) return def.onLocation(screen, outcome, body);
      return respondRedirect(req, res, outcome.redirectTo);
    case 'signed_in':
      if (def.onSignedIn) return def.onSignedIn(screen, outcome, submittedId);
      return respondRedirect(req, res, signedInTarget(screen));
    case 'error':
      if (def.onError) return def.onError(screen, outcome);
      return respondError(req, res, mapIdentityProviderError(outcome.status, outcome.body, t));
  }
}

async function submit<Body>(def: FlowScreen<Body>, screen: ScreenRequest): Promise<void> {
  const started = startTimer();
  const { req, res } = screen;
  const flowId = req.query.flow;
  const parsed = parseBody(def.body, req.body);
  if (!parsed.ok) return refuseBody(def, screen, parsed);
  // No form to post to (a post without ?flow=, or not a flow id): a new one, said as for a flow Kratos no longer has.
  if (!isFlowId(flowId)) return refuseBody(def, screen, { fieldErrors: {}, formErrors: ['flowError.restartedMissing'], code: ERROR_CODES.flowMissing });
  const refused = await def.precheck?.(screen, parsed.data);
  if (refused) return refuseBody(def, screen, { fieldErrors: {}, formErrors: [refused.key], code: refused.code });
  let kratosBody: Record<string, unknown> | null;
  if (def.fromFlow) {
    const current = await (def.submitted ? def.submitted(screen, flowId) : getFlow(req, res, def.kind, flowId));
    if (!current.ok) return answerOutcome(def, screen, flowId, classifySubmit(current), parsed.data);
    kratosBody = await def.fromFlow(screen, current.data, parsed.data);
    if (!kratosBody) return; // refused: the screen has answered
  } else if (def.toKratos) {
    kratosBody = def.toKratos(parsed.data, screen);
  } else {
    throw new Error(`flow screen ${def.paths[0]} builds no Kratos body: give it toKratos or fromFlow`);
  }
  const outcome = await submitFlow(req, res, def.kind, flowId, kratosBody);
  if (def.uniformTiming?.(parsed.data)) await waitForFloor(started);
  await answerOutcome(def, screen, flowId, outcome, parsed.data);
}

/** Serves a screen at each of its paths, and documents it in the OpenAPI document. */
export function flowScreenRoutes<Body>(def: FlowScreen<Body>): Router {
  const router = Router();
  const guards = def.guards ?? [];
  documentFlowScreen(def.paths, def.body, def.docs, def.rateLimit !== undefined);
  for (const path of def.paths) {
    router.get(path, ...guards, (req, res) => show(def, screenRequest(req, res, path)));
    router.post(path, ...(def.rateLimit ? authRateLimit(def.rateLimit) : []), ...guards, (req, res) => submit(def, screenRequest(req, res, path)));
  }
  return router;
}
