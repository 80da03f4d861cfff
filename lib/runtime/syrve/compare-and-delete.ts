// Deletes a key only while it still holds the value the caller saw: the lock's release and the removal of an unreadable session.
import { runScript, type LuaScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';

/**
 * KEYS[1] the key (refresh lock or runtime session)
 * ARGV[1] the value it must still hold (the lock owner, or the exact stored session)
 * Returns 1 deleted, 0 left alone (someone else's lock, a newer session, or nothing). Safe to run twice.
 */
export const DELETE_IF_EQUALS: LuaScript = {
  name: 'syrve.delete-if-equals',
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
