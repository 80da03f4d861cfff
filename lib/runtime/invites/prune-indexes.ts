// The cleanup cron's two steps on one organisation: prune its org index, then a bounded walk over its email indexes.
import * as z from 'zod';
import { INVITE_TTL_SECONDS } from '../../keys/index.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_DASHED_UUID } from './lua.ts';

/**
 * Lua, needs `allowance` (the most commands this script may run) and LUA_DASHED_UUID. Every command is counted in
 * `commands` next to the call, so the script can return what it cost and never run past its allowance.
 * prune_index: the index's expired members (batches of `batch`), then its live members from live rank `offset` whose
 * object is gone (EXISTS, at most `batch` per read), then its TTL raised to cover its newest member, never lowered.
 * It keeps `reserve` commands for its caller; when the next batch would not fit it stops and says where it was.
 * Returns finished (or false and the live rank to resume at), expired removed, orphans removed, live members
 * checked, TTLs raised (0 or 1), and whether the index is gone (Redis deletes a sorted set with its last member).
 */
const LUA_PRUNE_INDEX = `
local commands = 0
local function can(n) return commands + n <= allowance end
local function cover_newest(key, now, max_ttl)
  commands = commands + 1
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if #newest == 0 then return true, 0 end
  commands = commands + 1
  local ttl = redis.call('TTL', key)
  local needed = math.min(math.floor(tonumber(newest[2]) - tonumber(now)), max_ttl)
  if ttl == -1 and needed < 1 then needed = max_ttl end
  -- A second of slack: TTL rounds, and scores are whole seconds.
  if needed >= 1 and (ttl == -1 or ttl < needed - 1) then
    commands = commands + 1
    redis.call('EXPIRE', key, needed)
    return false, 1
  end
  return false, 0
end
local function prune_index(key, object_prefix, now, offset, batch, max_ttl, reserve)
  local expired_removed, orphans_removed, checked = 0, 0, 0
  local tail = 3 + reserve
  while true do
    if not can(2 + tail) then return false, offset, expired_removed, orphans_removed, checked, 0, false end
    commands = commands + 1
    local expired = redis.call('ZRANGEBYSCORE', key, '-inf', now, 'LIMIT', 0, batch)
    if #expired > 0 then
      commands = commands + 1
      expired_removed = expired_removed + redis.call('ZREM', key, unpack(expired))
    end
    if #expired < batch then break end
  end
  local walked_from = offset
  while true do
    local n = math.min(batch, allowance - commands - 2 - tail)
    if n < 1 then return false, offset, expired_removed, orphans_removed, checked, 0, false end
    commands = commands + 1
    local live = redis.call('ZRANGEBYSCORE', key, '(' .. now, '+inf', 'LIMIT', offset, n)
    local orphans = {}
    for _, member in ipairs(live) do
      local exists = 0
      if is_uuid_n(member) then
        commands = commands + 1
        exists = redis.call('EXISTS', object_prefix .. dashed(member))
      end
      if exists == 0 then orphans[#orphans + 1] = member end
    end
    checked = checked + #live
    if #orphans > 0 then
      commands = commands + 1
      orphans_removed = orphans_removed + redis.call('ZREM', key, unpack(orphans))
    end
    offset = offset + #live - #orphans
    if #live < n then break end
  end
  -- Walked from rank 0 and nothing survived: no member is left, so the index is gone.
  if walked_from == 0 and offset == 0 then return true, 0, expired_removed, orphans_removed, checked, 0, true end
  local gone, raised = cover_newest(key, now, max_ttl)
  return true, 0, expired_removed, orphans_removed, checked, raised, gone
end
`;

/**
 * KEYS[1] the organisation's active-by-org index
 * ARGV[1] now (unix seconds), ARGV[2] invite-object key prefix of the organisation, ARGV[3] live rank to resume the
 * orphan check at, ARGV[4] batch, ARGV[5] allowance (most commands to run), ARGV[6] longest TTL an index may get
 * Returns {finished 1|0, live rank to resume at, expired removed, orphans removed, checked, TTL raised, commands}.
 * Idempotent: ZREM counts only what it removed, so two runs at once never count a member twice.
 */
export const PRUNE_ORG_INDEX = defineScript({
  name: 'invites.pruneOrgIndex',
  keys: ['index'],
  args: ['now', 'objectPrefix', 'offset', 'batch', 'allowance', 'maxTtl'],
  source: `
local index_key = KEYS[1]
local now = ARGV[1]
local object_prefix = ARGV[2]
local offset = tonumber(ARGV[3])
local batch = tonumber(ARGV[4])
local allowance = tonumber(ARGV[5])
local max_ttl = tonumber(ARGV[6])
${LUA_DASHED_UUID}
${LUA_PRUNE_INDEX}
local finished, at, expired_removed, orphans_removed, checked, raised = prune_index(index_key, object_prefix, now, offset, batch, max_ttl, 0)
return {finished and 1 or 0, at, expired_removed, orphans_removed, checked, raised, commands}
`,
});

/**
 * KEYS[1] the organisation's registry of email indexes (inviteEmailIndexesByOrg)
 * ARGV[1] now, ARGV[2] invite-object key prefix, ARGV[3] email-index key prefix (both of the organisation, from
 * lib/keys), ARGV[4] registry rank to resume at, ARGV[5] live rank inside that email index, ARGV[6] batch (registry
 * entries per read, and prune_index's batch), ARGV[7] allowance, ARGV[8] longest TTL an index may get
 * Walks the registry by rank: prunes each email index as prune_index does, drops the entries whose index is gone (or
 * whose hash is not the 64-hex a key allows) with one ZREM per read, and at the end raises the registry's own TTL to
 * cover its newest entry. Email-index keys are completed here from validated hashes; they share the registry's hash
 * tag, so the script stays in one cluster slot.
 * Returns {finished 1|0, registry rank, live rank, expired removed, orphans removed, checked, TTLs raised,
 * registry entries dropped, commands}.
 */
export const PRUNE_EMAIL_INDEXES = defineScript({
  name: 'invites.pruneEmailIndexes',
  keys: ['registry'],
  args: ['now', 'objectPrefix', 'emailIndexPrefix', 'position', 'indexOffset', 'batch', 'allowance', 'maxTtl'],
  source: `
local registry_key = KEYS[1]
local now = ARGV[1]
local object_prefix = ARGV[2]
local email_index_prefix = ARGV[3]
local position = tonumber(ARGV[4])
local index_offset = tonumber(ARGV[5])
local batch = tonumber(ARGV[6])
local allowance = tonumber(ARGV[7])
local max_ttl = tonumber(ARGV[8])
${LUA_DASHED_UUID}
${LUA_PRUNE_INDEX}
local expired_removed, orphans_removed, checked, raised, dropped = 0, 0, 0, 0, 0
local walked_from = position
-- Kept for each email index: one ZREM of gone entries per read, and the registry's own tail.
local reserve = 1 + 3
while true do
  if not can(1 + 2 + 3 + reserve) then
    return {0, position, index_offset, expired_removed, orphans_removed, checked, raised, dropped, commands}
  end
  commands = commands + 1
  local hashes = redis.call('ZRANGE', registry_key, position, position + batch - 1)
  local drop = {}
  local stopped_at = nil
  for i, hash in ipairs(hashes) do
    if #hash == 64 and string.match(hash, '^[0-9a-f]+$') ~= nil then
      local finished, at, e, o, c, r, gone = prune_index(email_index_prefix .. hash, object_prefix, now, index_offset, batch, max_ttl, reserve)
      expired_removed, orphans_removed, checked, raised = expired_removed + e, orphans_removed + o, checked + c, raised + r
      if not finished then
        stopped_at, index_offset = i, at
        break
      end
      index_offset = 0
      if gone then drop[#drop + 1] = hash end
    else
      drop[#drop + 1] = hash
    end
  end
  if #drop > 0 then
    commands = commands + 1
    dropped = dropped + redis.call('ZREM', registry_key, unpack(drop))
  end
  if stopped_at then
    return {0, position + stopped_at - 1 - #drop, index_offset, expired_removed, orphans_removed, checked, raised, dropped, commands}
  end
  position = position + #hashes - #drop
  if #hashes < batch then break end
end
if not (walked_from == 0 and position == 0) then
  local _, r = cover_newest(registry_key, now, max_ttl)
  raised = raised + r
end
return {1, 0, 0, expired_removed, orphans_removed, checked, raised, dropped, commands}
`,
});

/** Members read per batch, and EXISTS checks per read: what one list call prunes, so no step holds Redis longer. */
const BATCH = 100;

const counts = z.array(z.number().int().nonnegative());

export interface PruneCounts {
  /** Expired members removed (ZREM's count: never counted twice, whoever runs at once). */
  expiredRemoved: number;
  /** Live-scored members whose invite object was gone, removed. */
  orphansRemoved: number;
  /** Live members checked for their object. */
  checked: number;
  /** Index TTLs raised to cover their newest member. */
  raised: number;
  /** Registry entries dropped because their email index was gone. */
  dropped: number;
  /** Redis commands the script ran (the EVALSHA itself not included). */
  commands: number;
}

export interface OrgIndexStep extends PruneCounts {
  finished: boolean;
  /** Live rank to resume the orphan check at, when not finished. */
  offset: number;
}

export interface EmailIndexesStep extends PruneCounts {
  finished: boolean;
  /** Registry rank to resume at, when not finished. */
  position: number;
  /** Live rank inside the email index at that rank. */
  indexOffset: number;
}

function decode(name: string, reply: unknown, length: number): number[] {
  const parsed = counts.safeParse(reply);
  if (!parsed.success || parsed.data.length !== length) throw new Error(`${name}: unexpected script reply`);
  return parsed.data;
}

/** One call of PRUNE_ORG_INDEX; idempotent, so it runs on the retrySafe client. */
export async function pruneOrgIndex(
  deps: Deps,
  input: { organizationId: string; offset: number; allowance: number; nowSeconds: number },
): Promise<OrgIndexStep> {
  const { keys } = deps;
  const reply = await runScript(deps.redis.retrySafe, PRUNE_ORG_INDEX, {
    keys: { index: keys.inviteActiveByOrg(input.organizationId) },
    args: {
      now: input.nowSeconds,
      objectPrefix: keys.inviteObjectPrefix(input.organizationId),
      offset: input.offset,
      batch: BATCH,
      allowance: input.allowance,
      maxTtl: INVITE_TTL_SECONDS,
    },
  });
  const [finished, offset, expiredRemoved, orphansRemoved, checked, raised, commands] = decode(PRUNE_ORG_INDEX.name, reply, 7);
  return {
    finished: finished === 1,
    offset: offset!,
    expiredRemoved: expiredRemoved!,
    orphansRemoved: orphansRemoved!,
    checked: checked!,
    raised: raised!,
    dropped: 0,
    commands: commands!,
  };
}

/** One call of PRUNE_EMAIL_INDEXES; idempotent, so it runs on the retrySafe client. */
export async function pruneEmailIndexes(
  deps: Deps,
  input: { organizationId: string; position: number; indexOffset: number; allowance: number; nowSeconds: number },
): Promise<EmailIndexesStep> {
  const { keys } = deps;
  const reply = await runScript(deps.redis.retrySafe, PRUNE_EMAIL_INDEXES, {
    keys: { registry: keys.inviteEmailIndexesByOrg(input.organizationId) },
    args: {
      now: input.nowSeconds,
      objectPrefix: keys.inviteObjectPrefix(input.organizationId),
      emailIndexPrefix: keys.inviteActiveByEmailHashPrefix(input.organizationId),
      position: input.position,
      indexOffset: input.indexOffset,
      batch: BATCH,
      allowance: input.allowance,
      maxTtl: INVITE_TTL_SECONDS,
    },
  });
  const [finished, position, indexOffset, expiredRemoved, orphansRemoved, checked, raised, dropped, commands] = decode(
    PRUNE_EMAIL_INDEXES.name,
    reply,
    9,
  );
  return {
    finished: finished === 1,
    position: position!,
    indexOffset: indexOffset!,
    expiredRemoved: expiredRemoved!,
    orphansRemoved: orphansRemoved!,
    checked: checked!,
    raised: raised!,
    dropped: dropped!,
    commands: commands!,
  };
}
