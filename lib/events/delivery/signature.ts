// The Standard Webhooks headers of one delivery, signed with the `standardwebhooks` package (pure JS: it runs on workerd).
import { Webhook } from 'standardwebhooks';

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The `webhook-id` of a delivery: the same on every retry of it, so a receiver can tell a retry from a new event. */
export function webhookIdOf(deliveryId: string): string {
  return `msg_${deliveryId.replaceAll('-', '')}`;
}

/**
 * Signs `body` once per secret (`whsec_…`), the current one first; during a rotation's overlap both signatures go in the
 * one header, space-separated, so a receiver still holding the old secret verifies as well as one holding the new.
 */
export function signDelivery(input: { secrets: readonly string[]; webhookId: string; timestampMs: number; body: string }): SignedHeaders {
  if (input.secrets.length === 0) throw new RangeError('a delivery needs at least one secret');
  const timestamp = new Date(input.timestampMs);
  const signatures = input.secrets.map((secret) => new Webhook(secret).sign(input.webhookId, timestamp, input.body));
  return {
    'webhook-id': input.webhookId,
    'webhook-timestamp': String(Math.floor(input.timestampMs / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
