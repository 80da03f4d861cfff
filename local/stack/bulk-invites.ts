// Writes many invites straight into Redis with the app's own key builders and record schema: the 50 000-invite tenant of the fairness test and the bench.
import type { Redis as IORedis } from 'ioredis';
import { uuidv7 } from 'uuidv7';
import { sha256Hex } from '../../lib/crypto/index.ts';
import type { Deps } from '../../lib/deps.ts';
import { hashEmail, normalizeEmail, parseHashedSegment, toUuidN } from '../../lib/keys/index.ts';
import { encodeJson } from '../../lib/redis/index.ts';
import { inviteRecordSchema, type InviteRecord } from '../../lib/runtime/invites/invite-record.ts';

/** Invites per pipeline: five commands each, so one flush stays a few MiB. */
const BATCH = 2_000;

export interface BulkInvite {
  inviteId: string;
  /** The index score: expiry in unix seconds. */
  expiresAtUnixSeconds: number;
}

/**
 * `count` live invites in one organisation, as `invites.create` would leave them but without the throttle, the cap,
 * tokens or audit rows (a tenant from before the cap, or one with a raised cap). Expiries are spread over
 * `distinctExpiries` seconds so many invites share a score, as a burst of creates does.
 */
export async function seedInvitesDirectly(
  redis: IORedis,
  deps: Pick<Deps, 'keys' | 'config' | 'clock'>,
  input: { organizationId: string; createdByUserId: string; count: number; distinctExpiries?: number },
): Promise<BulkInvite[]> {
  const { keys, config, clock } = deps;
  const orgIndexKey = keys.inviteActiveByOrg(input.organizationId);
  const emailRegistryKey = keys.inviteEmailIndexesByOrg(input.organizationId);
  const nowMs = clock.now();
  const distinct = Math.max(1, input.distinctExpiries ?? 50);
  const seeded: BulkInvite[] = [];
  for (let start = 0; start < input.count; start += BATCH) {
    const size = Math.min(BATCH, input.count - start);
    const records = await Promise.all(
      Array.from({ length: size }, async (_, offset) =>
        record(config.indexHashKey, input, start + offset, nowMs, config.inviteTtlSeconds, distinct),
      ),
    );
    const pipeline = redis.pipeline();
    for (const item of records) {
      const member = toUuidN(item.inviteId);
      const ttl = item.expiresAtUnixSeconds - Math.floor(nowMs / 1000);
      pipeline.set(keys.inviteObject(input.organizationId, item.inviteId), encodeJson(inviteRecordSchema, item), 'EX', ttl);
      pipeline.zadd(orgIndexKey, item.expiresAtUnixSeconds, member);
      const emailIndexKey = keys.inviteActiveByEmailHash(input.organizationId, parseHashedSegment(item.emailHash));
      pipeline.zadd(emailIndexKey, item.expiresAtUnixSeconds, member);
      pipeline.expire(emailIndexKey, config.inviteTtlSeconds);
      // One address per invite here, so each email index's latest expiry is its one member's.
      pipeline.zadd(emailRegistryKey, item.expiresAtUnixSeconds, item.emailHash);
      seeded.push({ inviteId: item.inviteId, expiresAtUnixSeconds: item.expiresAtUnixSeconds });
    }
    pipeline.expire(orgIndexKey, config.inviteTtlSeconds);
    pipeline.expire(emailRegistryKey, config.inviteTtlSeconds);
    const results = await pipeline.exec();
    const failed = results?.find(([error]) => error !== null);
    if (failed !== undefined) throw failed[0] as Error;
  }
  return seeded;
}

async function record(
  indexHashKey: string,
  input: { organizationId: string; createdByUserId: string },
  index: number,
  nowMs: number,
  ttlSeconds: number,
  distinct: number,
): Promise<InviteRecord> {
  const inviteId = uuidv7();
  const normalizedEmail = normalizeEmail(`bulk-${index}@example.test`);
  // Expiries from now + ttl down to now + ttl - distinct + 1: all in the future, many shared.
  const expiresAtUnixSeconds = Math.floor(nowMs / 1000) + ttlSeconds - (index % distinct);
  return {
    inviteId,
    storageOrganizationId: input.organizationId,
    organizationId: input.organizationId,
    locationId: null,
    normalizedEmail,
    emailHash: await hashEmail(indexHashKey, normalizedEmail),
    // No token is ever handed out for these: a hash of nothing anyone holds.
    tokenHash: await sha256Hex(`bulk-${inviteId}`),
    roleCode: 'Viewer',
    createdByUserId: input.createdByUserId,
    createdAtUtc: new Date(nowMs).toISOString(),
    expiresAtUtc: new Date(expiresAtUnixSeconds * 1000).toISOString(),
    correlationId: 'bulk-seed',
    isActive: true,
    expiresAtUnixSeconds,
  };
}
