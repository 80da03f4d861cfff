// Whether the denylist is whole: a state key on the revocation store that only a repair pass covering the whole window
// marks `whole`, holding that pass's position, and that vanishes with the entries when the store loses its data
// (docs/design/revocation.md#a-denylist-that-knows-it-is-whole).
import { uuidv7 } from 'uuidv7';
import { DENYLIST_STATE_TTL_SECONDS, denylistStateSchema, type DenylistState } from '../../keys/index.ts';
import type { Keyspace } from '../../keys/index.ts';
import { decodeJson, defineScript, encodeJson, redisCall, runScript, type RedisStore } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';

export type PassPosition = NonNullable<DenylistState['position']>;

/** Lua: the stored state as a table when it is readable and carries `epoch` (nil otherwise). */
const LUA_STATE_OF_EPOCH = `
local function state_of_epoch(state_key, epoch)
  local current = redis.call('GET', state_key)
  if not current then return nil end
  local ok, state = pcall(cjson.decode, current)
  if not ok or type(state) ~= 'table' or state['epoch'] ~= epoch then return nil end
  return state
end
`;

/**
 * Returns {0, state} when a readable state exists (a pass continues under its epoch from its position), or {1} after
 * writing ARGV[1], a `repairing` state with a new epoch and no position, because none was there: the store lost its
 * data (or never had a state), and a pass must cover the whole window from its start before anyone calls it whole.
 */
export const BEGIN_REPAIR_PASS = defineScript({
  name: 'revocation.begin-repair-pass',
  keys: ['state'],
  args: ['repairingJson', 'ttl'],
  source: `
local state_key = KEYS[1]
local repairing_json = ARGV[1]
local ttl = tonumber(ARGV[2])
local current = redis.call('GET', state_key)
if current then
  local ok, state = pcall(cjson.decode, current)
  if ok and type(state) == 'table' and type(state['epoch']) == 'string' and
     (state['state'] == 'whole' or state['state'] == 'repairing') then
    return {0, current}
  end
end
redis.call('SET', state_key, repairing_json, 'EX', ttl)
return {1}
`,
});

/**
 * Moves the pass's position to ARGV[2] (JSON), keeping the state and its TTL, only while the state still carries
 * ARGV[1]: a run of an older pass (the store flushed since) must not move the new pass past pages it never wrote.
 * Returns 1 when moved.
 */
export const SAVE_PASS_POSITION = defineScript({
  name: 'revocation.save-pass-position',
  keys: ['state'],
  args: ['epoch', 'positionJson'],
  source: `
local state_key = KEYS[1]
local epoch = ARGV[1]
local position_json = ARGV[2]
${LUA_STATE_OF_EPOCH}
local state = state_of_epoch(state_key, epoch)
if not state then return 0 end
state['position'] = cjson.decode(position_json)
redis.call('SET', state_key, cjson.encode(state), 'KEEPTTL')
return 1
`,
});

/**
 * Writes ARGV[2] (`whole`, no position) with a fresh TTL only while the state still carries ARGV[1], the epoch the
 * finished pass ran under. Returns 1 when written.
 */
export const COMPLETE_REPAIR_PASS = defineScript({
  name: 'revocation.complete-repair-pass',
  keys: ['state'],
  args: ['epoch', 'wholeJson', 'ttl'],
  source: `
local state_key = KEYS[1]
local epoch = ARGV[1]
local whole_json = ARGV[2]
local ttl = tonumber(ARGV[3])
${LUA_STATE_OF_EPOCH}
if not state_of_epoch(state_key, epoch) then return 0 end
redis.call('SET', state_key, whole_json, 'EX', ttl)
return 1
`,
});

/** The pass a repair run works under: its epoch, where it stopped (null: the window's start) and whether it is new. */
export async function beginRepairPass(deps: Deps): Promise<{ epoch: string; position: PassPosition | null; fresh: boolean }> {
  const repairing: DenylistState = { state: 'repairing', epoch: uuidv7(), sinceMs: deps.clock.now(), position: null };
  const reply = await runScript(deps.revocation.retrySafe, BEGIN_REPAIR_PASS, {
    keys: { state: deps.keys.denylistState() },
    args: { repairingJson: encodeJson(denylistStateSchema, repairing), ttl: DENYLIST_STATE_TTL_SECONDS },
  });
  const [status, raw] = Array.isArray(reply) ? reply : [];
  if (status === 1) {
    deps.logger.warn('denylist_incomplete', { reason: 'state-missing' });
    return { epoch: repairing.epoch, position: null, fresh: true };
  }
  const current = decodeJson(denylistStateSchema, raw);
  if (current === undefined) throw new Error('denylist state: unreadable reply');
  return { epoch: current.epoch, position: current.position, fresh: false };
}

export async function savePassPosition(deps: Deps, epoch: string, position: PassPosition): Promise<boolean> {
  const reply = await runScript(deps.revocation.retrySafe, SAVE_PASS_POSITION, {
    keys: { state: deps.keys.denylistState() },
    args: { epoch, positionJson: JSON.stringify(position) },
  });
  return reply === 1;
}

/** Marks the denylist whole after a pass under `epoch` covered the window; false when the state moved on meanwhile. */
export async function completeRepairPass(deps: Deps, epoch: string): Promise<boolean> {
  const whole: DenylistState = { state: 'whole', epoch, sinceMs: deps.clock.now(), position: null };
  const reply = await runScript(deps.revocation.retrySafe, COMPLETE_REPAIR_PASS, {
    keys: { state: deps.keys.denylistState() },
    args: { epoch, wholeJson: encodeJson(denylistStateSchema, whole), ttl: DENYLIST_STATE_TTL_SECONDS },
  });
  return reply === 1;
}

/** True when the raw state value (as read beside the entries) says the denylist is whole. */
export function isWhole(raw: unknown): boolean {
  return decodeJson(denylistStateSchema, raw)?.state === 'whole';
}

/**
 * After a denylist write that did not land: the denylist is no longer whole, so every check asks PostgreSQL (which holds
 * the revocation) and starts a repair, instead of letting the token pass until the next scheduled run. Best effort: a
 * store that refused the write may refuse this too, and then the scheduled repair is what remains. Never throws.
 */
export async function forgetWhole(store: RedisStore, keys: Keyspace): Promise<void> {
  await redisCall('revocation.forgetWhole', () => store.atMostOnce.del(keys.denylistState())).catch(() => undefined);
}
