// Takes back an invite whose audit event could not be written (best effort; a failure is logged with ids only).
import { errorKind } from '../../log/logger.ts';
import { defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS[1] invite object, KEYS[2] active-by-org index, KEYS[3] active-by-email-hash index, KEYS[4] the registry of
 * email indexes; ARGV[1] member (UUID N form), ARGV[2] the email hash. The registry entry goes too once its email
 * index is empty (another invite to the same address keeps it). Idempotent.
 */
export const REMOVE_INVITE = defineScript({
  name: 'invites.remove',
  keys: ['object', 'orgIndex', 'emailIndex', 'emailRegistry'],
  args: ['member', 'emailHash'],
  source: `
local object_key = KEYS[1]
local org_index_key = KEYS[2]
local email_index_key = KEYS[3]
local email_registry_key = KEYS[4]
local member = ARGV[1]
local email_hash = ARGV[2]
redis.call('DEL', object_key)
redis.call('ZREM', org_index_key, member)
redis.call('ZREM', email_index_key, member)
if redis.call('EXISTS', email_index_key) == 0 then redis.call('ZREM', email_registry_key, email_hash) end
return 1
`,
});

export async function removeInvite(
  deps: Deps,
  target: {
    objectKey: string;
    orgIndexKey: string;
    emailIndexKey: string;
    emailRegistryKey: string;
    emailHash: string;
    member: string;
    correlationId: string;
  },
): Promise<void> {
  try {
    // The script is idempotent, so a retry that lands twice is harmless.
    await runScript(
      deps.redis.retrySafe,
      REMOVE_INVITE,
      {
        keys: {
          object: target.objectKey,
          orgIndex: target.orgIndexKey,
          emailIndex: target.emailIndexKey,
          emailRegistry: target.emailRegistryKey,
        },
        args: { member: target.member, emailHash: target.emailHash },
      },
      { sendBody: true },
    );
  } catch (error) {
    // The token was never handed out, so the orphan cannot be accepted; it expires with its TTL.
    deps.logger.error('invite_rollback_failed', { errorKind: errorKind(error), correlationId: target.correlationId });
  }
}
