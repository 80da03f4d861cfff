// Gives a consumed invite back when its grant was refused for good (role conflict, email of another account) or
// its record could not be read, unless an admin cancelled it meanwhile or the consumption was finished.
import { toUuidN } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_EMAIL_INDEX_KEY, LUA_KEEP_INDEX_ALIVE, LUA_REGISTER_EMAIL_INDEX } from './lua.ts';

/**
 * Puts the invite stored in the receipt back, with its remaining TTL, and drops the receipt — only while the receipt
 * is still this attempt's and no cancel was asked for, and lists its email index in KEYS[5] (the organisation's registry
 * of them) as create does. SET NX never overwrites; a second run finds no receipt.
 * Returns 1 when given back, 0 when there was nothing to give back.
 */
export const RETURN_INVITE = defineScript({
  name: 'invites.return',
  keys: ['object', 'orgIndex', 'receipt', 'receiptsIndex', 'emailRegistry'],
  args: ['emailIndexPrefix', 'member', 'attempt', 'nowMs'],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local receipt_key = KEYS[3]
local receipts_index_key = KEYS[4]
local email_registry_key = KEYS[5]
local email_index_prefix = ARGV[1]
local member = ARGV[2]
local attempt = ARGV[3]
local now_ms = tonumber(ARGV[4])
${LUA_KEEP_INDEX_ALIVE}
${LUA_EMAIL_INDEX_KEY}
${LUA_REGISTER_EMAIL_INDEX}
local raw_receipt = redis.call('GET', receipt_key)
if not raw_receipt then return 0 end
local ok, receipt = pcall(cjson.decode, raw_receipt)
if not ok or type(receipt) ~= 'table' or receipt['attempt'] ~= attempt or type(receipt['invite']) ~= 'string' then return 0 end
if receipt['cancelRequestedBy'] then return 0 end
local value = receipt['invite']
local decoded, invite = pcall(cjson.decode, value)
local expires_at = decoded and type(invite) == 'table' and tonumber(invite['expiresAtUnixSeconds'])
redis.call('DEL', receipt_key)
redis.call('ZREM', receipts_index_key, member)
if not expires_at then return 0 end
local ttl_ms = expires_at * 1000 - now_ms
if ttl_ms <= 0 then return 0 end
if not redis.call('SET', object_key, value, 'PX', ttl_ms, 'NX') then return 0 end
local ttl = math.ceil(ttl_ms / 1000)
redis.call('ZADD', org_index_key, expires_at, member)
keep_index_alive(org_index_key, ttl)
local email_key, email_hash = email_index_key(email_index_prefix, value)
if email_key then
  redis.call('ZADD', email_key, expires_at, member)
  keep_index_alive(email_key, ttl)
  register_email_index(email_registry_key, email_hash, expires_at, ttl)
end
return 1
`,
});

export async function returnInvite(
  deps: Deps,
  target: { organizationId: string; inviteId: string; attempt: string; correlationId: string },
): Promise<void> {
  const { keys } = deps;
  try {
    await runScript(
      deps.redis.retrySafe,
      RETURN_INVITE,
      {
        keys: {
          object: keys.inviteObject(target.organizationId, target.inviteId),
          orgIndex: keys.inviteActiveByOrg(target.organizationId),
          receipt: keys.inviteReceipt(target.organizationId, target.inviteId),
          receiptsIndex: keys.inviteReceiptsByOrg(target.organizationId),
          emailRegistry: keys.inviteEmailIndexesByOrg(target.organizationId),
        },
        args: {
          emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(target.organizationId),
          member: toUuidN(target.inviteId),
          attempt: target.attempt,
          nowMs: deps.clock.now(),
        },
      },
      { sendBody: true },
    );
  } catch (error) {
    // The receipt stays: the reconciler meets it again and decides once more.
    deps.logger.error('invite_return_failed', {
      inviteId: target.inviteId,
      errorKind: errorKind(error),
      correlationId: target.correlationId,
    });
  }
}
