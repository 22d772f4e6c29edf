// How the backend stand-in sends an e-mail (an invitation): one JSON POST of the message, in the shape
// Ory Kratos's HTTP courier delivers ({ recipient, template_type, subject, body }), to a mail URL. Under
// `npm start` that URL is the identity stand-in's mailbox (POST /mailbox on its admin port), so the mail
// shows at http://localhost:4434/mailbox beside Kratos's own; under `start:ory` it can be the mail sidecar.
// Without a mail URL nothing is sent and the caller keeps the message in its outbox only.

export interface MailMessage {
  recipient: string;
  template_type: string;
  subject: string;
  body: string;
}

const MAIL_TIMEOUT_MS = 5_000;

export type Mailer = (message: MailMessage) => Promise<void>;

/** A mailer posting to `url` (with `apiKey` as bearer, when the mailbox is guarded by one). */
export function httpMailer(url: string, apiKey?: string): Mailer {
  return async (message) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message), signal: AbortSignal.timeout(MAIL_TIMEOUT_MS) });
    await response.body?.cancel();
    if (!response.ok) throw new Error(`the mail service answered ${response.status}`);
  };
}

export function invitationMail(recipient: string, link: string, expiresAt: string, invitedBy: string | null): MailMessage {
  const by = invitedBy ? ` by ${invitedBy}` : '';
  return {
    recipient,
    template_type: 'invitation',
    subject: 'You are invited to create an account',
    body: `Hi,\n\nyou were invited${by} to create an account with this address.\n\nOpen the following link to choose your password:\n\n${link}\n\nThe invitation is valid until ${expiresAt}.\n`,
  };
}
