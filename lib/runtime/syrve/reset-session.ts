// Forgets a connection's runtime state at once: the cached session and the reconnect circuit, and after a rotation raises the newest credential version.
import { defineScript, runScript } from '../../redis/index.ts';
import { SYRVE_CREDENTIAL_VERSION_TTL_SECONDS } from '../../keys/index.ts';
import type { Deps } from '../../deps.ts';
import type { SyrveConnection } from './connection.ts';
import { decodeSession } from './session-record.ts';

/**
 * KEYS[1] runtime session, KEYS[2] reconnect-failure counter, KEYS[3] newest credential version
 * ARGV[1] the newest credential version ('0': leave it), ARGV[2] that key's TTL seconds
 * Returns the session that was cached (to log it out upstream), or false. The version only ever rises, so a late,
 * older rotation cannot lower it. Safe to run twice.
 */
export const RESET_SESSION = defineScript({
  name: 'syrve.reset-session',
  keys: ['session', 'failures', 'newestVersion'],
  args: ['newestVersion', 'versionTtl'],
  source: `
local session_key = KEYS[1]
local failures_key = KEYS[2]
local newest_version_key = KEYS[3]
local newest_version = ARGV[1]
local version_ttl = tonumber(ARGV[2])
local version = tonumber(newest_version)
local session = redis.call('GET', session_key)
redis.call('DEL', session_key, failures_key)
if version > 0 then
  local newest = tonumber(redis.call('GET', newest_version_key) or '')
  if not newest or newest < version then redis.call('SET', newest_version_key, newest_version, 'EX', version_ttl) end
end
return session
`,
});

/**
 * Deletes the session and the circuit (and, with `newestVersion`, refuses sessions of older credentials that a login in
 * flight might still try to store); logs the dropped session out upstream, best effort, to free its licence seat.
 */
export async function resetSession(
  deps: Deps,
  connection: Pick<SyrveConnection, 'organizationId' | 'connectionId' | 'baseUrl'>,
  options: { newestVersion?: number } = {},
): Promise<void> {
  const { keys } = deps;
  const { organizationId, connectionId } = connection;
  const dropped = await runScript(deps.redis.retrySafe, RESET_SESSION, {
    keys: {
      session: keys.syrveRuntimeToken(organizationId, connectionId),
      failures: keys.syrveReconnectFailures(organizationId, connectionId),
      newestVersion: keys.syrveCredentialVersion(organizationId, connectionId),
    },
    args: { newestVersion: options.newestVersion ?? 0, versionTtl: SYRVE_CREDENTIAL_VERSION_TTL_SECONDS },
  });
  if (typeof dropped !== 'string') return;
  // Whichever credential version made it, a readable session of this connection is logged out.
  const record = decodeSession(dropped);
  if (record !== undefined && record.connectionId === connectionId)
    await deps.syrve.logout({ baseUrl: connection.baseUrl }, record.sessionId);
}
