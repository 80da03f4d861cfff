// Deletes a key only while it still holds the value the caller saw: releasing a lock it owns (the Syrve refresh lock, the
// scheduled function's run lock) or removing an unreadable value nobody replaced meanwhile.
import { defineScript, runScript } from '../redis/index.ts';
import type { Deps } from '../deps.ts';

/**
 * KEYS[1] the key (a lock, or a value found unreadable)
 * ARGV[1] the value it must still hold (the lock's owner, or the exact stored value)
 * Returns 1 deleted, 0 left alone (someone else's lock, a newer session, or nothing). Safe to run twice.
 */
export const DELETE_IF_EQUALS = defineScript({
  name: 'delete-if-equals',
  keys: ['target'],
  args: ['expected'],
  source: `
local target_key = KEYS[1]
local expected = ARGV[1]
if redis.call('GET', target_key) == expected then
  redis.call('DEL', target_key)
  return 1
end
return 0
`,
});

export async function deleteIfEquals(deps: Deps, key: string, expected: string): Promise<boolean> {
  return (await runScript(deps.redis.retrySafe, DELETE_IF_EQUALS, { keys: { target: key }, args: { expected } })) === 1;
}
