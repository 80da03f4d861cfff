// invites.list: one script returns a page of live objects, soonest expiry first; its cost is bounded by the page, not the index.
import { hashEmail } from '../../keys/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_DASHED_UUID } from './lua.ts';
import { inviteRecordSchema, toInvite, type Invite } from './invite-record.ts';
import { decodeCursor, encodeCursor } from './list-cursor.ts';

/** Expired members pruned per call at most; the rest go on later calls (and with the cleanup cron). */
const PRUNE_BATCH = 100;

/**
 * KEYS[1] an active index (by org or by email hash) of one organisation
 * ARGV[1] now (unix seconds), ARGV[2] invite-object key prefix of the same organisation (from lib/keys),
 * ARGV[3] page size, ARGV[4] cursor score ('' on the first page), ARGV[5] cursor member, ARGV[6] prune batch
 * Returns {more, last score, last member, {values}}, or {-1} for a cursor no list handed out (its member is in the
 * index under another score). Work is O(log N + page): a bounded prune of expired members, one range read
 * positioned by the cursor, one GET per page member; members whose object is gone are pruned as they are visited.
 * Order is the index's: score, then member. Object keys are completed here from validated members; they share the
 * index's hash tag, so the script stays in one cluster slot.
 */
export const LIST_INVITES = defineScript({
  name: 'invites.list',
  keys: ['index'],
  args: ['now', 'objectKeyPrefix', 'limit', 'afterScore', 'afterMember', 'pruneBatch'],
  source: `
local index_key = KEYS[1]
local now = ARGV[1]
local object_key_prefix = ARGV[2]
local limit = tonumber(ARGV[3])
local after_score = ARGV[4]
local after_member = ARGV[5]
local prune_batch = tonumber(ARGV[6])
${LUA_DASHED_UUID}
local expired = redis.call('ZRANGEBYSCORE', index_key, '-inf', now, 'LIMIT', 0, prune_batch)
if #expired > 0 then redis.call('ZREM', index_key, unpack(expired)) end
local entries
if after_score == '' or tonumber(after_score) <= tonumber(now) then
  -- First page, or a cursor inside the expired range: everything up to it is expired, so start at the first live one.
  entries = redis.call('ZRANGEBYSCORE', index_key, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
else
  local held = redis.call('ZSCORE', index_key, after_member)
  local start
  if held then
    if tonumber(held) ~= tonumber(after_score) then return {-1} end
    start = redis.call('ZRANK', index_key, after_member) + 1
  else
    -- The cursor's invite left meanwhile: put it back for a moment to learn its rank, then take it out again.
    redis.call('ZADD', index_key, after_score, after_member)
    start = redis.call('ZRANK', index_key, after_member)
    redis.call('ZREM', index_key, after_member)
  end
  entries = redis.call('ZRANGE', index_key, start, start + limit, 'WITHSCORES')
end
local values = {}
local last_score, last_member = '', ''
for i = 1, math.min(#entries, 2 * limit), 2 do
  local member = entries[i]
  last_member, last_score = member, entries[i + 1]
  local value = false
  if is_uuid_n(member) then value = redis.call('GET', object_key_prefix .. dashed(member)) end
  if value then values[#values + 1] = value else redis.call('ZREM', index_key, member) end
end
if #entries > 2 * limit then return {1, last_score, last_member, values} end
return {0, '', '', values}
`,
});

export interface ListQuery {
  organizationId: string;
  email?: string;
  /** 1..500, validated by the route. */
  limit: number;
  cursor?: string;
}

export type ListOutcome = { ok: true; invites: Invite[]; nextCursor: string | null } | { ok: false; reason: 'invalid-cursor' };

export async function listInvites(deps: Deps, query: ListQuery): Promise<ListOutcome> {
  const { keys } = deps;
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (query.cursor !== undefined && after === undefined) return { ok: false, reason: 'invalid-cursor' };
  const indexKey =
    query.email === undefined
      ? keys.inviteActiveByOrg(query.organizationId)
      : keys.inviteActiveByEmailHash(query.organizationId, await hashEmail(deps.config.indexHashKey, query.email));
  const nowSeconds = Math.floor(deps.clock.now() / 1000);
  // Pruning is idempotent, and the cursor's momentary re-insert is undone inside the same script: a retry is harmless.
  const reply = await runScript(deps.redis.retrySafe, LIST_INVITES, {
    keys: { index: indexKey },
    args: {
      now: nowSeconds,
      objectKeyPrefix: keys.inviteObjectPrefix(query.organizationId),
      limit: query.limit,
      afterScore: after === undefined ? '' : after.score,
      afterMember: after === undefined ? '' : after.member,
      pruneBatch: PRUNE_BATCH,
    },
  });
  const [more, lastScore, lastMember, values] = Array.isArray(reply) ? reply : [];
  if (more === -1) return { ok: false, reason: 'invalid-cursor' };
  const invites: Invite[] = [];
  for (const raw of Array.isArray(values) ? values : []) {
    const record = decodeJson(inviteRecordSchema, raw);
    // A value that fails its schema, or sits under the wrong tenant, is treated as missing.
    if (record === undefined || record.organizationId !== query.organizationId) continue;
    if (record.expiresAtUnixSeconds <= nowSeconds) continue;
    invites.push(toInvite(record));
  }
  const nextCursor = more === 1 ? encodeCursor({ score: Number(lastScore), member: String(lastMember) }) : null;
  return { ok: true, invites, nextCursor };
}
