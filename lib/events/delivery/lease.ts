// The delivery lease in Redis: whoever holds it is the one isolate that may send that delivery now.
import { bytesToHex, randomBytes } from '../../crypto/index.ts';
import { WEBHOOK_DELIVERY_LEASE_TTL_SECONDS } from '../../keys/index.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import { DELETE_IF_EQUALS } from '../../runtime/compare-and-delete.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS[1] the delivery's lease (registry row `webhookDeliveryLease`)
 * ARGV[1] owner (128 random bits, hex), ARGV[2] TTL ms
 * Returns 1 when the lease is the caller's (taken now, or already: a retried call that landed), 0 when another holds it.
 * A lease found without a TTL gets this one's, so it cannot hold a delivery for good. Safe to run twice.
 */
export const TAKE_DELIVERY_LEASE = defineScript({
  name: 'webhook.take-delivery-lease',
  keys: ['lease'],
  args: ['owner', 'ttlMs'],
  source: `
local lease_key = KEYS[1]
local owner = ARGV[1]
local ttl_ms = tonumber(ARGV[2])
local holder = redis.call('GET', lease_key)
if holder == owner then return 1 end
if holder then
  if redis.call('PTTL', lease_key) < 0 then redis.call('EXPIRE', lease_key, math.ceil(ttl_ms / 1000)) end
  return 0
end
redis.call('SET', lease_key, owner, 'PX', ttl_ms)
return 1
`,
});

export const LEASE_TTL_MS = WEBHOOK_DELIVERY_LEASE_TTL_SECONDS * 1000;

export interface Lease {
  organizationId: string;
  deliveryId: string;
  owner: string;
}

/** The lease, or undefined when another isolate holds it. Throws RedisUnavailableError when Redis cannot answer. */
export async function takeLease(deps: Deps, organizationId: string, deliveryId: string): Promise<Lease | undefined> {
  const owner = bytesToHex(randomBytes(16));
  const taken = await runScript(deps.redis.retrySafe, TAKE_DELIVERY_LEASE, {
    keys: { lease: deps.keys.webhookDeliveryLease(organizationId, deliveryId) },
    args: { owner, ttlMs: LEASE_TTL_MS },
  });
  return taken === 1 ? { organizationId, deliveryId, owner } : undefined;
}

/** Gives the lease back if it is still the caller's; false when it had expired (the send outlived it). */
export async function releaseLease(deps: Deps, lease: Lease): Promise<boolean> {
  const released = await runScript(deps.redis.retrySafe, DELETE_IF_EQUALS, {
    keys: { target: deps.keys.webhookDeliveryLease(lease.organizationId, lease.deliveryId) },
    args: { expected: lease.owner },
  });
  return released === 1;
}
