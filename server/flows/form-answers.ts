/**
 * How a flow form's answers are built (used by the flow-screen runner and the settings screen):
 *
 *   translateFieldErrors(t, keys)            → `{ field: [validation key] }` → translated texts
 *   splitFieldErrors(errors, visible)        → errors of fields the form shows vs the rest (form-level)
 *   respondWithoutFlow(req, res, loaded, to) → loadFlow gave no flow: signed in → `to`; else the mapped error
 *   formJson(t, flow, action, status, errors) → the JSON body of a form answer: `{ flow }` on success,
 *                                              the spec error shape plus `flow` on 4xx
 *   flowErrorJson(res, status, error, flow, action) → a JSON error answer with the flow to continue with
 */
import type { Request, Response } from 'express';
import { translator } from '../request-context.ts';
import type { LoadedFlow } from './kratos.ts';
import { errorBody, type AppError } from '../../core/errors.ts';
import { mapIdentityProviderError, type Translate } from '../../core/kratos/messages.ts';
import { respondError, respondRedirect } from './respond.ts';
import { flowState } from './flow-replacement.ts';
import { translateValidation } from './schemas.ts';
import type { KratosFlow } from '../../core/kratos/types.ts';

export function translateFieldErrors(t: Translate, errors: Record<string, string[]> | undefined): Record<string, string[]> | undefined {
  if (!errors) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, keys] of Object.entries(errors)) out[field] = keys.map((key) => translateValidation(t, key));
  return out;
}

/** Errors on fields the form does not show (csrf_token, provider…) would be invisible: move them up. */
export function splitFieldErrors(errors: Record<string, string[]>, visible: ReadonlySet<string>) {
  const fields: Record<string, string[]> = {};
  const form: string[] = [];
  for (const [field, keys] of Object.entries(errors)) {
    if (visible.has(field)) fields[field] = keys;
    else form.push(...keys);
  }
  return { fields, form };
}

export function visibleFieldNames(flow: KratosFlow): Set<string> {
  return new Set(
    flow.ui.nodes
      .filter((node) => node.attributes.node_type === 'input' && node.attributes.type !== 'hidden' && node.attributes.type !== 'submit')
      .map((node) => node.attributes.name ?? ''),
  );
}

export function respondWithoutFlow(req: Request, res: Response, loaded: Extract<LoadedFlow, { ok: false }>, signedInTarget: string): void {
  if (loaded.alreadySignedIn) return respondRedirect(req, res, signedInTarget);
  respondError(req, res, mapIdentityProviderError(loaded.status, loaded.body, translator(req)));
}

/** `code`: the JSON answer's code when it is not `validation_error` (a refusal of our own, e.g. the captcha). */
export type FormErrors = { fieldErrors?: Record<string, string[]>; formErrors?: string[]; code?: string };

export function formJson(t: Translate, flow: KratosFlow, action: string, status: number, errors: FormErrors = {}) {
  if (status < 400) return { flow: flowState(flow, action) };
  const mapped = mapIdentityProviderError(400, flow, t);
  const fields = translateFieldErrors(t, errors.fieldErrors);
  const hasFields = fields !== undefined && Object.keys(fields).length > 0;
  const firstFormError = errors.formErrors?.[0];
  const ours = hasFields || firstFormError !== undefined;
  return {
    ...errorBody({
      ...mapped,
      code: errors.code ?? (ours ? 'validation_error' : mapped.code),
      message: firstFormError ? translateValidation(t, firstFormError) : hasFields ? t('flowError.validationFailed') : mapped.message,
    }),
    meta: { ...mapped.meta, flowId: flow.id, ...(hasFields ? { fields } : {}) },
    flow: flowState(flow, action),
  };
}

/** Answers a JSON caller with a flow error: the mapped error, the flow id and the flow to continue with. */
export function flowErrorJson(res: Response, status: number, error: AppError, flow: KratosFlow, action: string): void {
  res
    .status(status)
    .set('Cache-Control', 'no-store')
    .json({ ...errorBody(error), meta: { ...error.meta, flowId: flow.id }, flow: flowState(flow, action) });
}
