// How a message reaches a person (a password-reset link today): an interface, so deployments plug in an email API and
// the local stack a mailbox folder (local/mailbox), with nothing else knowing which.
export interface OutgoingMessage {
  kind: 'password-reset' | 'invite';
  to: string;
  subject: string;
  /** Plain text; it may carry a link with a secret in it, so it is never logged. */
  text: string;
  correlationId: string;
}

export interface Notifier {
  /** Resolves once the provider accepted the message; rejects (without the message's content) when it did not. */
  send(message: OutgoingMessage): Promise<void>;
}

/** The notifier of a deployment that has none configured: every send fails, so nothing pretends to be delivered. */
export const noNotifier: Notifier = {
  send: () => Promise.reject(new Error('no notifier is configured')),
};
