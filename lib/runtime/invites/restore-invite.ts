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
  source: `${LUA_KEEP_INDEX_ALIVE}
local ttl_ms = tonumber(ARGV[2])
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl_ms, 'NX') then return 0 end
local ttl = math.ceil(ttl_ms / 1000)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
keep_index_alive(KEYS[2], ttl)
keep_index_alive(KEYS[3], ttl)
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
