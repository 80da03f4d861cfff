// The callback's one Redis step: the OIDC state is consumed only by the browser it was issued to. One script counts the
// caller's address (oidc-callback), then reads the state, compares the hash of the browser's binding cookie with the one
// kept in it, and deletes it only when they match.
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import { singleUseKey } from '../../runtime/single-use/single-use-token.ts';
import { ipSubject, LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import type { Deps } from '../../deps.ts';
import { oidcStateSchema, type OidcState } from './oidc-state.ts';

/**
 * KEYS[1] the state's key (registry row oidcState), KEYS[2] the caller's oidc-callback counter (throttleCounter; both
 * under platform:{oidc-callback}, one slot)
 * ARGV[1] SHA-256 (hex) of the binding cookie the callback's browser sent, or '' when it sent none
 * ARGV[2] seconds left in the counter's window, ARGV[3] its limit
 * Returns {'limited', seconds left} (the state not read), {'consumed', value} (deleted in this step), {'other-browser',
 * value} (left as it was), or {'none'}.
 * Every character is compared, with no early exit, so the time does not say how much of the hash matched. Run once
 * (atMostOnce): a retry after a lost reply would find nothing, as with lib/runtime/single-use/consume-once.ts.
 */
export const CONSUME_BOUND_STATE = defineScript({
  name: 'oidc.consume-bound-state',
  keys: ['state', 'counter'],
  args: ['browserHash', 'windowTtl', 'limit'],
  source: `
local state_key = KEYS[1]
local counter_key = KEYS[2]
local browser_hash = ARGV[1]
local window_ttl = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
${LUA_THROTTLE_HIT}
local count, ttl = hit_throttle(counter_key, window_ttl)
if count > limit then return {'limited', ttl} end
local raw = redis.call('GET', state_key)
if not raw then return {'none'} end
local ok, value = pcall(cjson.decode, raw)
if not ok or type(value) ~= 'table' or type(value.browserHash) ~= 'string' then return {'none'} end
local expected = value.browserHash
local differ = math.abs(string.len(expected) - string.len(browser_hash))
for i = 1, string.len(expected) do
  differ = differ + math.abs(string.byte(expected, i) - (string.byte(browser_hash, i) or 0))
end
if differ ~= 0 then return {'other-browser', raw} end
redis.call('DEL', state_key)
return {'consumed', raw}
`,
});

export type ConsumeStateOutcome =
  /** The state was this browser's: it is spent, and its value is in hand. */
  | { kind: 'consumed'; state: OidcState }
  /** A live state, but another browser (or none) presents it: refused, and the state stays for its own browser. */
  | { kind: 'other-browser'; state: OidcState }
  /** Never issued, expired, already spent, malformed, or a value that fails its schema. */
  | { kind: 'none' }
  /** The caller's address is over oidc-callback's limit: no state was read. */
  | { kind: 'rate-limited'; retryAfterSeconds: number };

/** The oidc-callback counter's scope: the platform (no tenant yet), under the hash tag of the states it guards. */
const CALLBACK_SCOPE = { kind: 'platform', tag: 'oidc-callback' } as const;

/**
 * Redis not answering throws RedisUnavailableError (503): the state is security state, with no fallback, and the
 * counter rides in its script, so it fails closed with it. A state not of a state's shape is never looked up, nor counted.
 */
export async function consumeBoundState(
  deps: Deps,
  input: { state: string; bindingCookie: string | undefined; clientIp: string | undefined },
): Promise<ConsumeStateOutcome> {
  const key = await singleUseKey(deps.keys, 'oidc-state', input.state);
  if (key === undefined) return { kind: 'none' };
  const [browserHash, window] = await Promise.all([
    input.bindingCookie === undefined || input.bindingCookie === '' ? '' : sha256Hex(input.bindingCookie),
    throttleWindow(deps, { action: 'oidc-callback', scope: CALLBACK_SCOPE, subject: ipSubject(input.clientIp) }),
  ]);
  const reply = await runScript(deps.redis.atMostOnce, CONSUME_BOUND_STATE, {
    keys: { state: key, counter: window.key },
    args: { browserHash, windowTtl: window.ttlSeconds, limit: window.limit },
  });
  const [kind, raw] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (kind === 'limited') return { kind: 'rate-limited', retryAfterSeconds: retryAfter(raw, window.ttlSeconds) };
  if (kind !== 'consumed' && kind !== 'other-browser') return { kind: 'none' };
  const value = decodeJson(oidcStateSchema, raw);
  return value === undefined ? { kind: 'none' } : { kind, state: value };
}
