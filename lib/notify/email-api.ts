// A Notifier over an HTTP email API: one JSON POST per message with a bearer token, a deadline, and no redirects.
import type { Notifier } from './notifier.ts';

export interface EmailApiSettings {
  url: string;
  token: string;
  from: string;
}

const SEND_TIMEOUT_MS = 5_000;

/**
 * The body is the common shape of transactional email APIs (`{ from, to, subject, text }`); a provider that wants
 * another is one small adapter beside this. The error says the status only: a provider's body may quote the message.
 */
export function createEmailApiNotifier(settings: EmailApiSettings, send: typeof fetch = (input, init) => fetch(input, init)): Notifier {
  return {
    async send(message) {
      const response = await send(settings.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        headers: { authorization: `Bearer ${settings.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: settings.from, to: message.to, subject: message.subject, text: message.text }),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`email API answered ${response.status}`);
    },
  };
}
