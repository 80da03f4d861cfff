// The denylist read on every authenticated request: one script that looks for the token's and the session's entries and
// returns the denylist's state beside (one billed command); any doubt is an error, never "not revoked". While the state does not say the denylist is whole, or says it has not come as far as the
// revocation clock beyond the grace (the store lost its newest writes), PostgreSQL answers for the session and the token.
import type { Keyspace } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { dbCall } from '../../pg/unavailable.ts';
import { defineScript, runScript, type RedisStore } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { readState } from './denylist-state.ts';
import { jtiDigest as digestOf } from './jti-digest.ts';
import { requiredPoint } from './revocation-clock.ts';
import { repairSoon } from './repair-soon.ts';

type Defer = ((work: Promise<unknown>) => void) | undefined;

/**
 * True when the token (its jti) or its session is revoked. The healthy path is one round trip on the revocation
 * store, beside which the revocation clock is read at most once a second per isolate; a store that lost its data (no
 * `whole` state) or its newest writes (its point behind the clock) costs one PostgreSQL read for this session and token
 * and starts a repair.
 */
export async function isRevoked(deps: Deps, token: { jti: string; sessionId: string }, defer: Defer): Promise<boolean> {
  // Jti entries stop one token whose session is not its presenter's to end (lib/runtime/revocation/revoke-token.ts);
  // the read rides in the same script, so it costs no round trip and no command.
  const jtiDigest = await digestOf(token.jti);
  const entries = [deps.keys.revokedJti(jtiDigest), deps.keys.revokedSession(token.sessionId)];
  const [read, required] = await Promise.all([readDenylist(deps.revocation, deps.keys, entries), requiredPoint(deps, defer)]);
  return decide(deps, read, required, { sessionId: token.sessionId, jtiDigest }, defer);
}

/** The session's entry alone, for flows that hold a session id but no token (the SSO handoff's exchange). */
export async function isSessionRevoked(deps: Deps, sessionId: string, defer: Defer): Promise<boolean> {
  const [read, required] = await Promise.all([
    readDenylist(deps.revocation, deps.keys, [deps.keys.revokedSession(sessionId)]),
    requiredPoint(deps, defer),
  ]);
  return decide(deps, read, required, { sessionId, jtiDigest: null }, defer);
}

interface Entries {
  sessionId: string;
  /** SHA-256 of the token's jti, as in its key and its revoked_tokens row; null when no token was presented. */
  jtiDigest: string | null;
}

interface DenylistRead {
  listed: boolean;
  whole: boolean;
  /** How far the denylist has come on the revocation clock (0 when not whole). */
  applied: number;
}

async function decide(deps: Deps, read: DenylistRead, required: number | undefined, entries: Entries, defer: Defer): Promise<boolean> {
  if (read.listed) return true;
  // Behind: a revocation committed more than the grace ago is not recorded here, so its entry may be missing (a
  // failover to a replica that was behind, a restore from a snapshot). PostgreSQL answers until the repair caught up.
  const behind = read.whole && required !== undefined && read.applied < required;
  if (read.whole && !behind) return false;
  const started = repairSoon(deps, defer, behind ? 'catch-up' : 'pass');
  if (behind && started) deps.logger.warn('denylist_behind', { applied: read.applied, required: required ?? 0 });
  try {
    return await revokedInPostgres(deps, entries);
  } catch (error) {
    // The caller refuses (503); the kind says whether PostgreSQL was down or only slow while it stood in for the store.
    deps.logger.warn('revocation_fallback_failed', { errorKind: errorKind(error) });
    throw error;
  }
}

/**
 * Returns {1 when any entry in KEYS[2..] exists (0 otherwise), the state's raw value (nil when missing)}. Read only, so
 * the check client's one retry is harmless. Every denylist key shares the `denylist` hash tag: one slot on a cluster.
 */
export const CHECK_DENYLIST = defineScript({
  name: 'revocation.check',
  keys: ['state'],
  args: [],
  restKeys: 'entries',
  source: `
local state_key = KEYS[1]
local listed = 0
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then listed = 1 end
end
return {listed, redis.call('GET', state_key)}
`,
});

async function readDenylist(store: RedisStore, keys: Keyspace, entries: string[]): Promise<DenylistRead> {
  // An error reply throws (a defect as RedisDefectError, a store that cannot serve as unavailable): never "not revoked".
  const reply = await runScript(store.check, CHECK_DENYLIST, { keys: { state: keys.denylistState(), entries } });
  if (!Array.isArray(reply) || reply.length !== 2 || (reply[0] !== 0 && reply[0] !== 1)) {
    throw new Error('revocation read: malformed script reply');
  }
  return { listed: reply[0] === 1, ...readState(reply[1]) };
}

/**
 * PostgreSQL, the truth, for one session and token: revoked when the session's row says so or the token has a
 * revoked_tokens row (a session it has no row for is not revoked). One statement, both primary-key reads.
 */
async function revokedInPostgres(deps: Deps, entries: Entries): Promise<boolean> {
  const rows = await dbCall('read', 'revocation.isRevoked.postgres', (signal) =>
    deps.db.query<{ revoked: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM sessions WHERE id = $1 AND revoked_at IS NOT NULL)
           OR EXISTS (SELECT 1 FROM revoked_tokens WHERE jti_sha256 = $2) AS revoked`,
      [entries.sessionId, entries.jtiDigest],
      { signal },
    ),
  );
  return rows[0]?.revoked === true;
}
