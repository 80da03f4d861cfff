// Finishes what lost replies left behind: every receipt whose outcome is not in PostgreSQL yet is finished exactly once.
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import { errorKind } from '../../log/logger.ts';
import type { Deps } from '../../deps.ts';
import { LUA_DASHED_UUID } from './lua.ts';
import { finishAcceptance } from './accept-invite.ts';
import { finishCancellation } from './cancel-invite.ts';
import { inviteRecordSchema } from './invite-record.ts';
import { readOutcomes } from './outcome.ts';
import { returnInvite } from './return-invite.ts';
import { inviteReceiptSchema } from './receipt.ts';

/**
 * Returns up to ARGV[3] receipts listed before ARGV[2] (unix seconds) as {member, receipt, …}; members whose receipt
 * expired are dropped from the list on the way. Idempotent. Receipt keys are derived from ARGV[1], the organisation's
 * receipt prefix: it carries the same `org:{<orgId>}` hash tag as KEYS[1], so on a cluster every key is in one slot.
 */
export const RECEIPTS_DUE = defineScript({
  name: 'invites.receiptsDue',
  keys: ['receiptsIndex'],
  args: ['receiptKeyPrefix', 'listedBefore', 'limit'],
  source: `
local receipts_index_key = KEYS[1]
local receipt_key_prefix = ARGV[1]
local listed_before = ARGV[2]
local limit = tonumber(ARGV[3])
${LUA_DASHED_UUID}
local members = redis.call('ZRANGEBYSCORE', receipts_index_key, '-inf', listed_before, 'LIMIT', 0, limit)
local due = {}
for _, member in ipairs(members) do
  local receipt = false
  if is_uuid_n(member) then receipt = redis.call('GET', receipt_key_prefix .. dashed(member)) end
  if receipt then
    due[#due + 1] = member
    due[#due + 1] = receipt
  else
    redis.call('ZREM', receipts_index_key, member)
  end
end
return due
`,
});

/** Drops finished receipts from the reconciler's list (the receipts themselves expire, so a late repeat still answers). */
export const FORGET_RECEIPTS = defineScript({
  name: 'invites.forgetReceipts',
  keys: ['receiptsIndex'],
  args: [],
  restArgs: 'members',
  source: `
local receipts_index_key = KEYS[1]
for i = 1, #ARGV do redis.call('ZREM', receipts_index_key, ARGV[i]) end
return #ARGV
`,
});

export interface ReconcileOptions {
  organizationId: string;
  /** Receipts younger than this are left to their own caller (whose transaction may still be running). */
  graceSeconds?: number;
  /** Receipts visited in one run: bounds the run's Redis and PostgreSQL cost. */
  limit?: number;
}

export interface ReconcileReport {
  visited: number;
  /** Outcomes recorded by this run. */
  finished: number;
  /** Receipts whose outcome was already recorded (the caller's reply arrived, or a repeat finished it). */
  alreadyFinished: number;
  /** Left for the next run: PostgreSQL could not answer, or the receipt is unreadable. */
  pending: number;
}

/**
 * Chosen: a consumed invite is finished, not given back. The accept's caller proved the token and the verified
 * email before the script consumed it, so completing the grant is what they asked for; giving it back would reopen
 * an invite the user believes used and race a later cancel. A grant refused for this invitee or for now (another role
 * held, the email of another account, a suspended organisation) gives the invite back, and one refused for good (its
 * creator no longer an admin there, its organisation deleted) cancels it, as the accept itself would. Cancels are
 * finished the same way, a removal's with the reason its receipt carries. A registration is the exception: it cannot
 * be finished without the newcomer's password, so it is given back.
 */
export async function reconcileInvites(deps: Deps, options: ReconcileOptions): Promise<ReconcileReport> {
  const { keys } = deps;
  const indexKey = keys.inviteReceiptsByOrg(options.organizationId);
  const listedBefore = Math.floor(deps.clock.now() / 1000) - (options.graceSeconds ?? 30);
  const reply = await runScript(deps.redis.retrySafe, RECEIPTS_DUE, {
    keys: { receiptsIndex: indexKey },
    args: { receiptKeyPrefix: keys.inviteReceiptPrefix(options.organizationId), listedBefore, limit: options.limit ?? 100 },
  });
  const flat = Array.isArray(reply) ? reply : [];
  const due: Array<{ member: string; raw: unknown }> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) due.push({ member: String(flat[i]), raw: flat[i + 1] });

  const report: ReconcileReport = { visited: due.length, finished: 0, alreadyFinished: 0, pending: 0 };
  const readable = due.flatMap(({ member, raw }) => {
    const receipt = decodeJson(inviteReceiptSchema, raw);
    const record = receipt === undefined ? undefined : decodeJson(inviteRecordSchema, receipt.invite);
    if (receipt === undefined || record === undefined || record.organizationId !== options.organizationId) {
      report.pending += 1;
      deps.logger.error('invite_receipt_unreadable', { organizationId: options.organizationId });
      return [];
    }
    return [{ member, receipt, record }];
  });
  // One query tells which are finished already, so the common case (the reply arrived) costs no transaction.
  const outcomes = await readOutcomes(
    deps,
    readable.map(({ record }) => record.inviteId),
  );
  const forget: string[] = [];
  for (const { member, receipt, record } of readable) {
    if (outcomes.has(record.inviteId)) {
      report.alreadyFinished += 1;
      forget.push(member);
      continue;
    }
    try {
      if (receipt.kind === 'accept' && receipt.cancelRequestedBy === undefined) {
        await finishAcceptance(deps, receipt, record);
      } else if (receipt.kind === 'register' && receipt.cancelRequestedBy === undefined) {
        // The newcomer's password is kept nowhere, so a registration nobody finished is given back instead. The return
        // drops the receipt and its listing itself; one that failed stays listed for the next run.
        const { organizationId, inviteId } = record;
        await returnInvite(deps, { organizationId, inviteId, attempt: receipt.attempt, correlationId: receipt.correlationId });
        report.finished += 1;
        continue;
      } else {
        // A cancel marked on an accept's receipt names its own key (or none); a cancel's receipt its own.
        const actorApiKeyId = receipt.cancelRequestedBy !== undefined ? receipt.cancelRequestedByApiKey : receipt.actorApiKeyId;
        const { actorApiKeyId: _own, ...rest } = receipt;
        await finishCancellation(
          deps,
          {
            ...rest,
            actorUserId: receipt.cancelRequestedBy ?? receipt.actorUserId,
            ...(actorApiKeyId === undefined ? {} : { actorApiKeyId }),
          },
          record,
        );
      }
      report.finished += 1;
      forget.push(member);
    } catch (error) {
      report.pending += 1;
      deps.logger.warn('invite_reconcile_deferred', { inviteId: record.inviteId, errorKind: errorKind(error) });
    }
  }
  if (forget.length > 0)
    await runScript(deps.redis.retrySafe, FORGET_RECEIPTS, { keys: { receiptsIndex: indexKey }, args: { members: forget } });
  return report;
}
