/**
 * Structural types of the Kratos objects the app reads (contract §3, §4, §12). Deliberately looser than
 * the SDK's generated types: the renderer must cope with any node Kratos sends, including methods this
 * app has never seen, so everything beyond the fields we read stays optional.
 */

export type FlowKind = 'login' | 'registration' | 'recovery' | 'verification' | 'settings';

export type UiText = {
  id: number;
  text: string;
  type: 'info' | 'error' | 'success' | string;
  context?: Record<string, unknown>;
};

export type UiNodeAttributes = {
  node_type: 'input' | 'img' | 'a' | 'text' | 'script' | 'div' | string;
  name?: string;
  type?: string;
  value?: unknown;
  required?: boolean;
  autocomplete?: string;
  pattern?: string;
  maxlength?: number;
  disabled?: boolean;
  label?: UiText;
  options?: { value: unknown }[];
  href?: string;
  title?: UiText;
  text?: UiText;
  id?: string;
  src?: string;
  width?: number;
  height?: number;
};

export type UiNode = {
  type: string;
  group: string;
  attributes: UiNodeAttributes;
  messages: UiText[];
  meta: { label?: UiText };
};

export type UiContainer = {
  action: string;
  method: string;
  nodes: UiNode[];
  messages?: UiText[];
};

export type ContinueWithItem = {
  action: string;
  redirect_browser_to?: string;
  flow?: { id: string; url?: string; verifiable_address?: string };
};

export type KratosFlow = {
  id: string;
  type?: string;
  expires_at?: string;
  issued_at?: string;
  request_url?: string;
  return_to?: string;
  active?: string;
  state?: string;
  refresh?: boolean;
  ui: UiContainer;
  continue_with?: ContinueWithItem[];
  identity?: KratosIdentity;
};

export type KratosIdentity = {
  id: string;
  state?: string;
  traits: Record<string, unknown> & { email?: string; name?: string };
  verifiable_addresses?: { value: string; verified: boolean; via: string; status?: string }[];
};

export type KratosSession = {
  id: string;
  active?: boolean;
  expires_at?: string;
  authenticated_at?: string;
  identity?: KratosIdentity;
};

/** herodot's error object (contract §1.2). */
export type KratosErrorObject = {
  id?: string;
  code?: number;
  status?: string;
  reason?: string;
  message?: string;
  details?: Record<string, unknown>;
};

/** An error answer: the envelope plus the "enhanced" members some errors carry. */
export type KratosErrorBody = {
  error?: KratosErrorObject;
  redirect_browser_to?: string;
  use_flow_id?: string;
  expired_at?: string;
};

export function isFlow(value: unknown): value is KratosFlow {
  return typeof value === 'object' && value !== null && 'ui' in value && typeof (value as KratosFlow).id === 'string';
}

export function isInputNode(node: UiNode): boolean {
  return node.attributes.node_type === 'input';
}
