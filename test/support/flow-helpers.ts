/**
 * Helpers for the integration tests of the verification, resend and recovery screens: identities made
 * through the identity service's admin API, codes read from its courier, and small HTML readers.
 */
import { courierMessages as readCourier, latestCode as latestMailedCode } from './courier.ts';
import type { Stack } from './stack.ts';

export async function createIdentity(stack: Stack, email: string, password: string, options: { verified?: boolean; name?: string } = {}): Promise<string> {
  const response = await fetch(`${stack.identity.adminUrl}/admin/identities`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      schema_id: 'default',
      traits: { email, name: options.name ?? 'Test User' },
      credentials: { password: { config: { password } } },
      ...(options.verified ? { verifiable_addresses: [{ value: email, verified: true, via: 'email', status: 'completed' }] } : {}),
    }),
  });
  if (response.status !== 201) throw new Error(`identity not created: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

export function courierMessages(stack: Stack, email: string) {
  return readCourier(stack.identity.adminUrl, email);
}

/** The newest six-digit code sent to `email` with a template of `kind` (recovery or verification), now. */
export function latestCode(stack: Stack, email: string, kind: 'recovery' | 'verification'): Promise<string> {
  return latestMailedCode(stack.identity.adminUrl, email, kind, 1);
}

export function csrfFrom(html: string): string {
  const token = /name="csrf_token"[^>]*value="([^"]+)"/.exec(html)?.[1] ?? /value="([^"]+)"[^>]*name="csrf_token"/.exec(html)?.[1];
  if (!token) throw new Error('no csrf_token in the page');
  return token.replaceAll('&amp;', '&').replaceAll('&#x2F;', '/').replaceAll('&#x3D;', '=');
}

export function flowIdOf(location: string | undefined): string {
  const id = new URL(location ?? '', 'http://x').searchParams.get('flow');
  if (!id) throw new Error(`no flow in ${location}`);
  return id;
}

/** Visible text of a page: tags, scripts and styles removed, whitespace collapsed. */
export function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}
