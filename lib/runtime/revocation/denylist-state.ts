// Whether the denylist is whole and how far it has come: a state key on the revocation store that only a repair pass
// covering the whole window marks `whole`, holding that pass's position and the revocation clock's point every entry up
// to which is here, and that vanishes with the entries when the store loses its data, or goes back with them when the
// store goes back (docs/design/revocation.md#a-denylist-that-knows-how-far-it-has-come).
import { uuidv7 } from 'uuidv7';
import { DENYLIST_PENDING_MAX, DENYLIST_STATE_TTL_SECONDS, denylistStateSchema, type DenylistState } from '../../keys/index.ts';
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
 * Lua: moves `applied` up over the revocations in `pending` that now follow it without a gap, and keeps in `pending`
 * only those still above it (nil when none: cjson writes an empty table as an object).
 */
const LUA_FOLD_PENDING = `
local function fold_pending(state)
  local applied = state['applied']
  local landed = {}
  if type(state['pending']) == 'table' then
    for _, seq in ipairs(state['pending']) do landed[seq] = true end
  end
  while landed[applied + 1] do applied = applied + 1 end
  local rest = {}
  for seq, _ in pairs(landed) do
    if seq > applied then rest[#rest + 1] = seq end
  end
  table.sort(rest)
  state['applied'] = applied
  if #rest == 0 then state['pending'] = nil else state['pending'] = rest end
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
  if ok and type(state) == 'table' and type(state['epoch']) == 'string' and type(state['applied']) == 'number' and
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
 * Marks the state `whole` (no position, `sinceMs` ARGV[2]) with a fresh TTL only while it still carries ARGV[1], the
 * epoch the finished pass ran under. A pass that began on a lost state read the clock first (`passClock`): it has now
 * written every revocation up to that point, so `applied` moves there, and over what writers landed meanwhile. Returns
 * 1 when written.
 */
export const COMPLETE_REPAIR_PASS = defineScript({
  name: 'revocation.complete-repair-pass',
  keys: ['state'],
  args: ['epoch', 'sinceMs', 'ttl'],
  source: `
local state_key = KEYS[1]
local epoch = ARGV[1]
local since_ms = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
${LUA_STATE_OF_EPOCH}
${LUA_FOLD_PENDING}
local state = state_of_epoch(state_key, epoch)
if not state or type(state['applied']) ~= 'number' then return 0 end
if type(state['passClock']) == 'number' and state['passClock'] > state['applied'] then
  state['applied'] = state['passClock']
end
fold_pending(state)
state['state'] = 'whole'
state['sinceMs'] = since_ms
state['position'] = cjson.null
state['passClock'] = cjson.null
redis.call('SET', state_key, cjson.encode(state), 'EX', ttl)
return 1
`,
});

/**
 * Lua: records revocation `seq` as landed: `applied` moves to it when it is the next one, over any already pending after
 * it; one further on waits in `pending` (bounded: past that, the repair catches up). No state, nothing: only a repair
 * pass writes one. Safe to run twice. Returns `applied` after, or -1 with no state. Runs in the script that wrote the
 * revocation's entries (lib/runtime/revocation/write-revocation.ts), so the point never passes an entry that did not land.
 */
export const LUA_ADVANCE_APPLIED = `
${LUA_FOLD_PENDING}
local function advance_applied(state_key, seq)
  local current = redis.call('GET', state_key)
  if not current then return -1 end
  local ok, state = pcall(cjson.decode, current)
  if not ok or type(state) ~= 'table' or type(state['applied']) ~= 'number' then return -1 end
  if seq <= state['applied'] then return state['applied'] end
  local pending = state['pending']
  if type(pending) ~= 'table' then pending = {} end
  if seq > state['applied'] + 1 and #pending >= ${DENYLIST_PENDING_MAX} then return state['applied'] end
  pending[#pending + 1] = seq
  state['pending'] = pending
  fold_pending(state)
  redis.call('SET', state_key, cjson.encode(state), 'KEEPTTL')
  return state['applied']
end
`;

/**
 * The targeted repair, having written every revocation up to ARGV[2] that came after the state's point: `applied` moves
 * there (never back), only while the state still carries ARGV[1] and is whole. Returns `applied` after, or -1.
 */
export const CATCH_UP_APPLIED = defineScript({
  name: 'revocation.catch-up-applied',
  keys: ['state'],
  args: ['epoch', 'seq'],
  source: `
local state_key = KEYS[1]
local epoch = ARGV[1]
local seq = tonumber(ARGV[2])
${LUA_STATE_OF_EPOCH}
${LUA_FOLD_PENDING}
local state = state_of_epoch(state_key, epoch)
if not state or state['state'] ~= 'whole' or type(state['applied']) ~= 'number' then return -1 end
if seq > state['applied'] then state['applied'] = seq end
fold_pending(state)
redis.call('SET', state_key, cjson.encode(state), 'KEEPTTL')
return state['applied']
`,
});

export interface RepairPass {
  epoch: string;
  /** Where the pass stopped; null: the window's start. */
  position: PassPosition | null;
  /** True when this run found no state and began the pass. */
  fresh: boolean;
  state: DenylistState['state'];
  applied: number;
}

/**
 * The pass a repair run works under. `clockNow` is the revocation clock read before: a pass that begins here covers
 * every revocation up to it once it has walked the window.
 */
export async function beginRepairPass(deps: Deps, clockNow: number): Promise<RepairPass> {
  const repairing: DenylistState = {
    state: 'repairing',
    epoch: uuidv7(),
    sinceMs: deps.clock.now(),
    position: null,
    applied: 0,
    passClock: clockNow,
  };
  const reply = await runScript(deps.revocation.retrySafe, BEGIN_REPAIR_PASS, {
    keys: { state: deps.keys.denylistState() },
    args: { repairingJson: encodeJson(denylistStateSchema, repairing), ttl: DENYLIST_STATE_TTL_SECONDS },
  });
  const [status, raw] = Array.isArray(reply) ? reply : [];
  if (status === 1) {
    deps.logger.warn('denylist_incomplete', { reason: 'state-missing' });
    return { epoch: repairing.epoch, position: null, fresh: true, state: 'repairing', applied: 0 };
  }
  const current = decodeJson(denylistStateSchema, raw);
  if (current === undefined) throw new Error('denylist state: unreadable reply');
  return { epoch: current.epoch, position: current.position, fresh: false, state: current.state, applied: current.applied };
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
  const reply = await runScript(deps.revocation.retrySafe, COMPLETE_REPAIR_PASS, {
    keys: { state: deps.keys.denylistState() },
    args: { epoch, sinceMs: deps.clock.now(), ttl: DENYLIST_STATE_TTL_SECONDS },
  });
  return reply === 1;
}

/** After the targeted repair wrote every revocation up to `seq`: the point it moved to, or undefined (state moved on). */
export async function catchUpApplied(deps: Deps, epoch: string, seq: number): Promise<number | undefined> {
  const reply = await runScript(deps.revocation.retrySafe, CATCH_UP_APPLIED, {
    keys: { state: deps.keys.denylistState() },
    args: { epoch, seq },
  });
  return typeof reply === 'number' && reply >= 0 ? reply : undefined;
}

/** What the check reads from the state: whole or not, and how far the denylist has come (0 when not whole). */
export function readState(raw: unknown): { whole: boolean; applied: number } {
  const state = decodeJson(denylistStateSchema, raw);
  return state?.state === 'whole' ? { whole: true, applied: state.applied } : { whole: false, applied: 0 };
}

/**
 * After a denylist write that did not land: the denylist is no longer whole, so every check asks PostgreSQL (which holds
 * the revocation) and starts a repair, instead of letting the token pass until the next scheduled run. Best effort: a
 * store that refused the write may refuse this too, and then the scheduled repair is what remains. Never throws.
 */
export async function forgetWhole(store: RedisStore, keys: Keyspace): Promise<void> {
  await redisCall('revocation.forgetWhole', () => store.atMostOnce.del(keys.denylistState())).catch(() => undefined);
}
