// Client for the identity service's admin API (Kratos contract §16, §2.2). Server side only.
import { ApiError } from './errors.ts';

export interface AdminIdentity {
  id: string;
  state?: string;
  traits?: Record<string, unknown>;
  verifiable_addresses?: { value: string; verified: boolean; status?: string }[];
}

interface AdminResponse {
  status: number;
  body: unknown;
}

export class IdentityAdmin {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;

  constructor(baseUrl: string, apiKey: string | undefined, timeoutMs = 5000) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.apiKey = apiKey;
    this.timeoutMs = timeoutMs;
  }

  async request(method: string, path: string, body?: unknown): Promise<AdminResponse> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'manual',
      });
    } catch {
      throw new ApiError(502, 'identity_unavailable', 'The identity service could not be reached');
    }
    const text = await res.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (res.status >= 500 || res.status === 401 || res.status === 403) {
      throw new ApiError(502, 'identity_error', `The identity service answered ${res.status}`);
    }
    return { status: res.status, body: parsed };
  }

  async getIdentity(id: string): Promise<AdminIdentity | null> {
    const res = await this.request('GET', `/admin/identities/${encodeURIComponent(id)}`);
    if (res.status === 404) return null;
    if (res.status !== 200) throw new ApiError(502, 'identity_error', `getIdentity answered ${res.status}`);
    return res.body as AdminIdentity;
  }

  async findByEmail(email: string): Promise<AdminIdentity | null> {
    const res = await this.request('GET', `/admin/identities?credentials_identifier=${encodeURIComponent(email)}`);
    if (res.status !== 200 || !Array.isArray(res.body)) return null;
    return (res.body[0] as AdminIdentity | undefined) ?? null;
  }

  /** DELETE /admin/identities/{id}/sessions → 204. A missing identity (404) has no sessions. */
  async revokeSessions(id: string): Promise<void> {
    const res = await this.request('DELETE', `/admin/identities/${encodeURIComponent(id)}/sessions`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
      throw new ApiError(502, 'identity_error', `deleteIdentitySessions answered ${res.status}`);
    }
  }

  async deleteIdentity(id: string): Promise<void> {
    const res = await this.request('DELETE', `/admin/identities/${encodeURIComponent(id)}`);
    if (res.status !== 204 && res.status !== 200 && res.status !== 404) {
      throw new ApiError(502, 'identity_error', `deleteIdentity answered ${res.status}`);
    }
  }

  async createRecoveryLink(identityId: string): Promise<{ recovery_link: string; expires_at?: string }> {
    const res = await this.request('POST', '/admin/recovery/link', { identity_id: identityId, expires_in: '5m' });
    if (res.status !== 200 && res.status !== 201) throw new ApiError(502, 'identity_error', `createRecoveryLink answered ${res.status}`);
    return res.body as { recovery_link: string; expires_at?: string };
  }

  async createIdentity(body: Record<string, unknown>): Promise<AdminResponse> {
    return this.request('POST', '/admin/identities', body);
  }

  async patchIdentity(id: string, ops: unknown[]): Promise<AdminResponse> {
    return this.request('PATCH', `/admin/identities/${encodeURIComponent(id)}`, ops);
  }
}
