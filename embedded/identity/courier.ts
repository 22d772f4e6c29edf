// Courier: every outgoing e-mail is stored (GET /admin/courier/messages) and, when an SMTP URL is
// configured, also sent through nodemailer.
import { randomUUID } from 'node:crypto';
import { createTransport, type Transporter } from 'nodemailer';
import type { Clock } from '../clock.ts';
import type { IdentityConfig } from './config.ts';
import type { CourierMessage, Store } from './store.ts';

export interface Email {
  to: string;
  subject: string;
  body: string;
  template_type: string;
}

export const templates = {
  recoveryCode: (to: string, code: string, minutes: number): Email => ({
    to,
    template_type: 'recovery_code_valid',
    subject: 'Recover access to your account',
    body: `Hi,\n\nplease recover access to your account by entering the following code:\n\n${code}\n\nThis code expires in ${minutes} minutes.\n`,
  }),
  recoveryCodeInvalid: (to: string): Email => ({
    to,
    template_type: 'recovery_code_invalid',
    subject: 'Account access attempted',
    body: `Hi,\n\nyou (or someone else) entered this email address when trying to recover access to an account.\n\nHowever, this email address is not on our database of registered users and therefore the attempt has failed.\n\nIf this was you, check if you signed up using a different address.\n\nIf this was not you, please ignore this email.\n`,
  }),
  recoveryLink: (to: string, url: string, minutes: number): Email => ({
    to,
    template_type: 'recovery_valid',
    subject: 'Recover access to your account',
    body: `Hi,\n\nplease recover access to your account by clicking the following link:\n\n${url}\n\nThis link expires in ${minutes} minutes.\n`,
  }),
  recoveryLinkInvalid: (to: string): Email => ({ ...templates.recoveryCodeInvalid(to), template_type: 'recovery_invalid' }),
  verificationCode: (to: string, code: string, url: string, minutes: number): Email => ({
    to,
    template_type: 'verification_code_valid',
    subject: 'Please verify your email address',
    body: `Hi,\n\nplease verify your account by entering the following code:\n\n${code}\n\nor clicking the following link:\n\n${url}\n\nThis code expires in ${minutes} minutes.\n`,
  }),
  verificationCodeInvalid: (to: string): Email => ({
    to,
    template_type: 'verification_code_invalid',
    subject: 'Someone tried to verify this email address',
    body: `Hi,\n\nsomeone asked to verify this email address, but we were unable to find an account for this address.\n\nIf this was you, check if you signed up using a different address.\n\nIf this was not you, please ignore this email.\n`,
  }),
  verificationLink: (to: string, url: string, minutes: number): Email => ({
    to,
    template_type: 'verification_valid',
    subject: 'Please verify your email address',
    body: `Hi,\n\nplease verify your account by clicking the following link:\n\n${url}\n\nThis link expires in ${minutes} minutes.\n`,
  }),
  verificationLinkInvalid: (to: string): Email => ({ ...templates.verificationCodeInvalid(to), template_type: 'verification_invalid' }),
};

export class Courier {
  store: Store;
  transport?: Transporter;
  from: string;
  pending = new Set<Promise<unknown>>();
  private clock: Clock;

  constructor(store: Store, config: IdentityConfig, clock: Clock) {
    this.store = store;
    this.clock = clock;
    const smtp = config.courier.smtp;
    this.from = smtp.from_name ? `"${smtp.from_name}" <${smtp.from_address}>` : smtp.from_address;
    if (smtp.connection_uri) this.transport = createTransport(smtp.connection_uri);
  }

  send(mail: Email): CourierMessage {
    const now = this.isoNow();
    const id = randomUUID();
    const m: CourierMessage = {
      id,
      status: this.transport ? 'queued' : 'sent',
      type: 'email',
      recipient: mail.to,
      subject: mail.subject,
      body: mail.body,
      template_type: mail.template_type,
      channel: 'email',
      send_count: this.transport ? 0 : 1,
      // Kept without a transport is sent at once: one successful dispatch, as Kratos records it.
      dispatches: this.transport ? [] : [{ id: randomUUID(), message_id: id, status: 'success', error: null, created_at: now, updated_at: now }],
      created_at: now,
      updated_at: now,
    };
    this.store.saveMessage(m);
    if (this.transport) {
      const p = this.deliver(m).finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
    return m;
  }

  private async deliver(m: CourierMessage): Promise<void> {
    const now = () => this.isoNow();
    try {
      await this.transport!.sendMail({ from: this.from, to: m.recipient, subject: m.subject, text: m.body });
      m.status = 'sent';
      m.dispatches.push({ id: randomUUID(), message_id: m.id, status: 'success', error: null, created_at: now(), updated_at: now() });
    } catch (e) {
      m.status = 'abandoned';
      m.dispatches.push({
        id: randomUUID(),
        message_id: m.id,
        status: 'failed',
        error: { message: (e as Error).message },
        created_at: now(),
        updated_at: now(),
      });
    }
    m.send_count += 1;
    m.updated_at = now();
    try {
      this.store.saveMessage(m);
    } catch {
      // store closed during shutdown
    }
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    this.transport?.close();
  }
}
