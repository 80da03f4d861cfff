// invites.cancel: one script deletes the object and both index entries; the audit row follows, or the invite is restored.
import { toUuidN } from '../../keys/index.ts';
import { decodeJson, runScript, type LuaScript } from '../../redis/index.ts';
import { auditStatement } from '../../pg/audit.ts';
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import { LUA_EMAIL_INDEX_KEY } from './lua.ts';
import { inviteRecordSchema } from './invite-record.ts';
import { restoreInvite } from './restore-invite.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index
 * ARGV[1] email-index key prefix of the same organisation (completed with the stored emailHash), ARGV[2] member
 * Returns the removed JSON, or false when there was no active invite (a stray index member is still removed).
 */
export const CANCEL_INVITE: LuaScript = {
  name: 'invites.cancel',
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_prefix = ARGV[1]
local member = ARGV[2]
${LUA_EMAIL_INDEX_KEY}
local value = redis.call('GET', object_key)
redis.call('ZREM', org_index_key, member)
if not value then return false end
redis.call('DEL', object_key)
local email_key = email_index_key(email_index_prefix, value)
if email_key then redis.call('ZREM', email_key, member) end
return value
`,
};

export type CancelOutcome = { ok: true } | { ok: false; reason: 'not-active' };

export async function cancelInvite(
  deps: Deps,
  input: { organizationId: string; inviteId: string; actorUserId: string; correlationId: string },
): Promise<CancelOutcome> {
  const { keys } = deps;
  const raw = await runScript(
    deps.redis.atMostOnce,
    CANCEL_INVITE,
    [keys.inviteObject(input.organizationId, input.inviteId), keys.inviteActiveByOrg(input.organizationId)],
    [keys.inviteActiveByEmailHashPrefix(input.organizationId), toUuidN(input.inviteId)],
  );
  const record = decodeJson(inviteRecordSchema, raw);
  if (typeof raw !== 'string' || record === undefined) return { ok: false, reason: 'not-active' };
  try {
    // Built before the call: an invalid audit event is a bug, not an unavailable database.
    const statements = [
      auditStatement(
        {
          action: 'invite.cancelled',
          actorUserId: input.actorUserId,
          organizationId: input.organizationId,
          locationId: record.locationId,
          targetId: input.inviteId,
          correlationId: input.correlationId,
          details: { roleCode: record.roleCode },
        },
        new Date(deps.clock.now()),
      ),
    ];
    await dbCall('commit', 'audit.invite.cancelled', (signal) => deps.db.transaction(statements, { signal }));
  } catch (error) {
    await restoreInvite(deps, raw, record, input.correlationId);
    throw error;
  }
  return { ok: true };
}
