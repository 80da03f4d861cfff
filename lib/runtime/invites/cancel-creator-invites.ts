// invites.cancelByCreator: a member's removal cancels the active invites they created in the organisation, as an admin's
// cancel would (receipts in Redis, then the outcome and `invite.cancelled` with the reason in PostgreSQL).
import { uuidv7 } from 'uuidv7';
import { INVITE_RECEIPT_TTL_SECONDS } from '../../keys/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { LUA_DASHED_UUID, LUA_EMAIL_INDEX_KEY } from './lua.ts';
import { inviteRecordSchema } from './invite-record.ts';
import { cancellationUnlessFinished } from './outcome.ts';
import { LUA_KEEP_RECEIPT, LUA_NEW_RECEIPT, inviteReceiptSchema } from './receipt.ts';

/** Index members read per call: the organisation's active invites are at most INVITE_MAX_ACTIVE_PER_ORG (default 1 000). */
const BATCH = 500;

/**
 * Walks ARGV[10] (rank) .. +ARGV[11] of the organisation's active index. Each live invite whose `createdByUserId` is
 * ARGV[4] is consumed as the cancel script consumes one (object and both index entries removed, a cancel receipt
 * naming the removing admin, and its API key ARGV[12] when one removed them, with the reason `member-removed` written and listed for the reconciler), in the same step.
 * Every key is derived under the organisation's hash tag (the prefixes carry it). Returns {members read, the rank to
 * go on from, receipt…}. Safe to run twice: a second run finds those invites gone.
 */
export const CANCEL_CREATOR_INVITES = defineScript({
  name: 'invites.cancelByCreator',
  keys: ['orgIndex', 'receiptsIndex'],
  args: [
    'objectPrefix',
    'receiptPrefix',
    'emailIndexPrefix',
    'creator',
    'actor',
    'attempt',
    'correlationId',
    'nowMs',
    'receiptTtl',
    'offset',
    'batch',
    'actorKey',
  ],
  source: `
local org_index_key = KEYS[1]
local receipts_index_key = KEYS[2]
local object_prefix = ARGV[1]
local receipt_prefix = ARGV[2]
local email_index_prefix = ARGV[3]
local creator = ARGV[4]
local actor = ARGV[5]
local attempt = ARGV[6]
local correlation_id = ARGV[7]
local now_ms = ARGV[8]
local receipt_ttl = tonumber(ARGV[9])
local offset = tonumber(ARGV[10])
local batch = tonumber(ARGV[11])
local actor_key = ARGV[12]
if actor_key == '' then actor_key = nil end
${LUA_DASHED_UUID}
${LUA_EMAIL_INDEX_KEY}
${LUA_NEW_RECEIPT}
${LUA_KEEP_RECEIPT}
local members = redis.call('ZRANGE', org_index_key, offset, offset + batch - 1)
local reply = {#members, 0}
local kept = 0
for _, member in ipairs(members) do
  local value = false
  if is_uuid_n(member) then value = redis.call('GET', object_prefix .. dashed(member)) end
  local ok, obj = false, nil
  if value then ok, obj = pcall(cjson.decode, value) end
  if ok and type(obj) == 'table' and obj['createdByUserId'] == creator then
    redis.call('DEL', object_prefix .. dashed(member))
    redis.call('ZREM', org_index_key, member)
    local email_key = email_index_key(email_index_prefix, value)
    if email_key then redis.call('ZREM', email_key, member) end
    local receipt = new_receipt('cancel', actor, attempt, correlation_id, now_ms, value, 'member-removed', actor_key)
    keep_receipt(receipt_prefix .. dashed(member), receipts_index_key, member, receipt, now_ms, receipt_ttl)
    reply[#reply + 1] = receipt
  else
    kept = kept + 1
  end
end
reply[2] = offset + kept
return reply
`,
});

export interface CancelCreatorInvitesInput {
  organizationId: string;
  /** The member removed: whose invites go. */
  creatorUserId: string;
  /** The admin who removed them: the cancels' actor. */
  actorUserId: string;
  /** The organisation's API key that removed them, when one did: the cancels' audit actor in place of the admin. */
  actorApiKeyId?: string | undefined;
  correlationId: string;
}

/**
 * Runs after the removal committed, beside its other best-effort steps, and never throws (the removal answers `204`
 * whatever happens here). First the Redis walk (retrySafe: a repeat finds nothing left to take), then one PostgreSQL
 * transaction with one outcome row and `invite.cancelled` (reason `member-removed`, the admin as actor) per invite,
 * each skipped if that invite's outcome is written already. If PostgreSQL fails, the receipts stay listed and the
 * reconciler finishes them with the reason they carry. If Redis fails, the invites stay listed until they expire, and
 * every accept or register of one is refused `410` and cancels it there (invite_assert_grantable,
 * migrations/0023_invite_grant_guards.sql): the grant's check, not this walk, is what keeps the removed admin out.
 * Returns how many were cancelled in Redis, or undefined when a step failed (logged).
 */
export async function cancelCreatorInvites(deps: Deps, input: CancelCreatorInvitesInput): Promise<{ cancelled: number | undefined }> {
  const { keys } = deps;
  const receipts: unknown[] = [];
  const nowMs = deps.clock.now();
  try {
    const attempt = uuidv7();
    for (let offset = 0; ;) {
      const reply = await runScript(deps.redis.retrySafe, CANCEL_CREATOR_INVITES, {
        keys: { orgIndex: keys.inviteActiveByOrg(input.organizationId), receiptsIndex: keys.inviteReceiptsByOrg(input.organizationId) },
        args: {
          objectPrefix: keys.inviteObjectPrefix(input.organizationId),
          receiptPrefix: keys.inviteReceiptPrefix(input.organizationId),
          emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(input.organizationId),
          creator: input.creatorUserId,
          actor: input.actorUserId,
          attempt,
          correlationId: input.correlationId,
          nowMs,
          receiptTtl: INVITE_RECEIPT_TTL_SECONDS,
          offset,
          batch: BATCH,
          actorKey: input.actorApiKeyId ?? '',
        },
      });
      const [read, next, ...taken] = Array.isArray(reply) ? reply : [];
      receipts.push(...taken);
      if (Number(read) < BATCH) break;
      offset = Number(next);
    }
  } catch (error) {
    deps.logger.warn('invite_cancel_deferred', {
      organizationId: input.organizationId,
      correlationId: input.correlationId,
      step: 'redis',
      errorKind: errorKind(error),
    });
    if (receipts.length === 0) return { cancelled: undefined };
  }
  const at = new Date(nowMs);
  const statements = receipts.flatMap((raw) => {
    const receipt = decodeJson(inviteReceiptSchema, raw);
    const record = receipt === undefined ? undefined : decodeJson(inviteRecordSchema, receipt.invite);
    if (record === undefined) return [];
    return [
      cancellationUnlessFinished(
        {
          record,
          actorUserId: input.actorUserId,
          ...(input.actorApiKeyId === undefined ? {} : { actorApiKeyId: input.actorApiKeyId }),
          correlationId: input.correlationId,
          reason: 'member-removed',
        },
        at,
      ),
    ];
  });
  if (statements.length === 0) return { cancelled: receipts.length };
  try {
    await dbCall('commit', 'invites.cancelByCreator.audit', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    // The receipts stay listed: the reconciler records these cancellations after its grace (reconcile-invites.ts).
    deps.logger.warn('invite_cancel_deferred', {
      organizationId: input.organizationId,
      correlationId: input.correlationId,
      step: 'postgres',
      errorKind: errorKind(error),
    });
    return { cancelled: undefined };
  }
  return { cancelled: receipts.length };
}
