// Deletes a key only while it still holds the value the caller saw: releasing a lock it owns (the Syrve refresh lock, the
// scheduled function's run lock) or removing an unreadable value nobody replaced meanwhile.
import { runScript, type LuaScript } from '../redis/index.ts';
import type { Deps } from '../deps.ts';

/**
 * KEYS[1] the key (a lock, or a value found unreadable)
 * ARGV[1] the value it must still hold (the lock's owner, or the exact stored value)
 * Returns 1 deleted, 0 left alone (someone else's lock, a newer session, or nothing). Safe to run twice.
 */
export const DELETE_IF_EQUALS: LuaScript = {
  name: 'delete-if-equals',
  source: `
local key = KEYS[1]
local expected = ARGV[1]
if redis.call('GET', key) == expected then
  redis.call('DEL', key)
  return 1
end
return 0
`,
};

export async function deleteIfEquals(deps: Deps, key: string, expected: string): Promise<boolean> {
  return (await runScript(deps.redis.retrySafe, DELETE_IF_EQUALS, [key], [expected])) === 1;
}
