// Puts a consumed or cancelled invite back, with its remaining TTL, when the PostgreSQL half of the operation failed.
import { parseHashedSegment, toUuidN } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { runScript, type LuaScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { LUA_KEEP_INDEX_ALIVE } from './lua.ts';
import type { InviteRecord } from './invite-record.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index, KEYS[3] active-by-email-hash index
 * ARGV[1] invite JSON, ARGV[2] remaining TTL in ms, ARGV[3] member, ARGV[4] score.
 * SET NX: never overwrites, so running it twice (or after a new accept) changes nothing.
 */
export const RESTORE_INVITE: LuaScript = {
  name: 'invites.restore',
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_key = KEYS[3]
local invite_json = ARGV[1]
local ttl_ms = tonumber(ARGV[2])
local member = ARGV[3]
local expires_at = ARGV[4]
${LUA_KEEP_INDEX_ALIVE}
if not redis.call('SET', object_key, invite_json, 'PX', ttl_ms, 'NX') then return 0 end
local ttl = math.ceil(ttl_ms / 1000)
redis.call('ZADD', org_index_key, expires_at, member)
redis.call('ZADD', email_index_key, expires_at, member)
keep_index_alive(org_index_key, ttl)
keep_index_alive(email_index_key, ttl)
return 1
`,
};

export async function restoreInvite(deps: Deps, raw: string, record: InviteRecord, correlationId: string): Promise<void> {
  const remainingMs = record.expiresAtUnixSeconds * 1000 - deps.clock.now();
  if (remainingMs <= 0) return;
  const { keys } = deps;
  try {
    await runScript(
      deps.redis.retrySafe,
      RESTORE_INVITE,
      [
        keys.inviteObject(record.organizationId, record.inviteId),
        keys.inviteActiveByOrg(record.organizationId),
        keys.inviteActiveByEmailHash(record.organizationId, parseHashedSegment(record.emailHash)),
      ],
      [raw, String(remainingMs), toUuidN(record.inviteId), String(record.expiresAtUnixSeconds)],
      { sendBody: true },
    );
  } catch (error) {
    deps.logger.error('invite_restore_failed', { inviteId: record.inviteId, errorKind: errorKind(error), correlationId });
  }
}
