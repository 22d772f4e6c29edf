// Reading what the embedded identity service "sent": its courier, through the admin API as Kratos has it.

type CourierMessage = { recipient: string; template_type: string; body: string; created_at: string };

/** Every courier message addressed to `email`, as the admin API lists them. */
export async function courierMessages(adminUrl: string, email: string): Promise<CourierMessage[]> {
  const response = await fetch(`${adminUrl}/admin/courier/messages?recipient=${encodeURIComponent(email)}`);
  const list = (await response.json()) as CourierMessage[];
  return list.filter((message) => message.recipient === email.toLowerCase());
}

/**
 * The newest six-digit code of `kind` (recovery or verification) mailed to `email`. Waits a little for
 * it, since a browser test may ask right after the page that sent it loaded.
 */
export async function latestCode(adminUrl: string, email: string, kind: 'recovery' | 'verification', attempts = 20): Promise<string> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const messages = (await courierMessages(adminUrl, email))
      .filter((message) => message.template_type.startsWith(`${kind}_code`))
      .sort((a, b) => b.created_at.localeCompare(a.created_at));
    const code = /\b(\d{6})\b/.exec(messages[0]?.body ?? '')?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no ${kind} code for ${email}`);
}
