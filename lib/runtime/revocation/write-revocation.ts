// The denylist write of one revocation, after PostgreSQL committed it: its entries and the point it moves, in one script
// (one round trip, one billed command). Every denylist key shares the `denylist` hash tag, so it is one slot on a
// cluster too (docs/design/revocation.md#revocation-writes-and-the-active-context).
import type { Keyspace } from '../../keys/index.ts';
import { defineScript, runScript, type RedisStore } from '../../redis/index.ts';
import { LUA_ADVANCE_APPLIED } from './denylist-state.ts';

/**
 * `SET <entry> 1 EX ttl` for every key in KEYS[2..], then, when ARGV[2] is a revocation's clock value (not 0), records
 * it as applied in the state. Atomic: the point moves only in the script that wrote every entry, and a script that
 * fails before its first write writes nothing (Redis refuses an out-of-memory write before it, and no later SET of a
 * string can fail). Returns how many entries it wrote.
 */
export const WRITE_REVOCATION = defineScript({
  name: 'revocation.write',
  keys: ['state'],
  args: ['ttl', 'seq'],
  restKeys: 'entries',
  source: `
local state_key = KEYS[1]
local ttl = tonumber(ARGV[1])
local seq = tonumber(ARGV[2])
${LUA_ADVANCE_APPLIED}
local written = 0
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], '1', 'EX', ttl)
  written = written + 1
end
if seq > 0 then advance_applied(state_key, seq) end
return written
`,
});

export interface RevocationWrite {
  /** The revocation's entry keys (revokedSession or revokedJti); none when it revoked nothing new to write. */
  entries: readonly string[];
  ttlSeconds: number;
  /** The revocation clock's value the revoking transaction took; null when it took none. */
  revocationSeq: number | null;
}

/**
 * True only when the script's reply says it wrote every entry; an error, a deadline or any other reply is false (the
 * entries may or may not be there: the caller treats them as not landed). One 2 s attempt on the atMostOnce client, as
 * the denylist write always had: the request that revoked waits for it.
 */
export async function writeRevocation(store: RedisStore, keys: Keyspace, write: RevocationWrite): Promise<boolean> {
  let reply: unknown;
  try {
    reply = await runScript(store.atMostOnce, WRITE_REVOCATION, {
      keys: { state: keys.denylistState(), entries: [...write.entries] },
      args: { ttl: Math.max(1, write.ttlSeconds), seq: write.revocationSeq ?? 0 },
    });
  } catch {
    return false;
  }
  return reply === write.entries.length;
}
