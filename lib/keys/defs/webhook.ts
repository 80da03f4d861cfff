// The outgoing webhook delivery lease: at most one isolate sends a given delivery at a time.
import { defineKey } from '../define-key.ts';
import { uuid } from '../id-segments.ts';
import { lockOwner } from '../key-values.ts';
import { orgScope } from '../scopes.ts';

/**
 * A send's whole life fits well inside it (the URL check, the send's 10 s deadline, the outcome's write); a holder that
 * died blocks the delivery no longer than this. A send that outlives it anyway cannot end the delivery twice: the
 * outcome's UPDATE is fenced on the attempt it read (lib/events/delivery/record-outcome.ts).
 */
export const WEBHOOK_DELIVERY_LEASE_TTL_SECONDS = 30;

export const webhookKeys = {
  webhookDeliveryLease: defineKey({
    scope: orgScope,
    domain: 'webhook',
    purpose: 'delivery-lease',
    id: [uuid('deliveryId')],
    ttl: { seconds: WEBHOOK_DELIVERY_LEASE_TTL_SECONDS },
    value: lockOwner,
  }),
};
