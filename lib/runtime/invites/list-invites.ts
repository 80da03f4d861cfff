// invites.list: one script prunes expired index members and returns the live objects, soonest expiry first.
import { hashEmail } from '../../keys/index.ts';
import { decodeJson, runScript, type LuaScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_DASHED_UUID } from './lua.ts';
import { inviteRecordSchema, toInvite, type Invite } from './invite-record.ts';

/**
 * KEYS[1] an active index (by org or by email hash) of one organisation
 * ARGV[1] now (unix seconds), ARGV[2] invite-object key prefix of the same organisation (from lib/keys)
 * Object keys are completed here from validated members; they share the index's hash tag, so the script stays
 * in one cluster slot. Members whose object is gone (expired, or lost with Redis data) are pruned too.
 */
export const LIST_INVITES: LuaScript = {
  name: 'invites.list',
  source: `
local index_key = KEYS[1]
local now = ARGV[1]
local object_key_prefix = ARGV[2]
${LUA_DASHED_UUID}
redis.call('ZREMRANGEBYSCORE', index_key, '-inf', now)
local members = redis.call('ZRANGE', index_key, 0, -1)
local values = {}
for _, member in ipairs(members) do
  local value = false
  if is_uuid_n(member) then value = redis.call('GET', object_key_prefix .. dashed(member)) end
  if value then values[#values + 1] = value else redis.call('ZREM', index_key, member) end
end
return values
`,
};

export async function listInvites(deps: Deps, query: { organizationId: string; email?: string }): Promise<Invite[]> {
  const { keys } = deps;
  const indexKey =
    query.email === undefined
      ? keys.inviteActiveByOrg(query.organizationId)
      : keys.inviteActiveByEmailHash(query.organizationId, await hashEmail(deps.config.indexHashKey, query.email));
  const nowSeconds = Math.floor(deps.clock.now() / 1000);
  // Pruning is idempotent, so a retry that lands twice is harmless.
  const reply = await runScript(
    deps.redis.retrySafe,
    LIST_INVITES,
    [indexKey],
    [String(nowSeconds), keys.inviteObjectPrefix(query.organizationId)],
  );
  const invites: Invite[] = [];
  for (const raw of Array.isArray(reply) ? reply : []) {
    const record = decodeJson(inviteRecordSchema, raw);
    // A value that fails its schema, or sits under the wrong tenant, is treated as missing.
    if (record === undefined || record.organizationId !== query.organizationId) continue;
    if (record.expiresAtUnixSeconds <= nowSeconds) continue;
    invites.push(toInvite(record));
  }
  return invites;
}
