// The callback's one Redis step: the OIDC state is consumed only by the browser it was issued to. One script reads the
// state, compares the hash of the browser's binding cookie with the one kept in it, and deletes it only when they match.
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import { singleUseKey } from '../../runtime/single-use/single-use-token.ts';
import type { Deps } from '../../deps.ts';
import { oidcStateSchema, type OidcState } from './oidc-state.ts';

/**
 * KEYS[1] the state's key (registry row oidcState)
 * ARGV[1] SHA-256 (hex) of the binding cookie the callback's browser sent, or '' when it sent none
 * Returns {'consumed', value} (deleted in this step), {'other-browser', value} (left as it was), or {'none'}.
 * Every character is compared, with no early exit, so the time does not say how much of the hash matched. Run once
 * (atMostOnce): a retry after a lost reply would find nothing, as with lib/runtime/single-use/consume-once.ts.
 */
export const CONSUME_BOUND_STATE = defineScript({
  name: 'oidc.consume-bound-state',
  keys: ['state'],
  args: ['browserHash'],
  source: `
local state_key = KEYS[1]
local browser_hash = ARGV[1]
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
  | { kind: 'none' };

/** Redis not answering throws RedisUnavailableError (503): the state is security state, with no fallback. */
export async function consumeBoundState(deps: Deps, state: string, bindingCookie: string | undefined): Promise<ConsumeStateOutcome> {
  const key = await singleUseKey(deps.keys, 'oidc-state', state);
  if (key === undefined) return { kind: 'none' };
  const browserHash = bindingCookie === undefined || bindingCookie === '' ? '' : await sha256Hex(bindingCookie);
  const reply = await runScript(deps.redis.atMostOnce, CONSUME_BOUND_STATE, { keys: { state: key }, args: { browserHash } });
  const [kind, raw] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (kind !== 'consumed' && kind !== 'other-browser') return { kind: 'none' };
  const value = decodeJson(oidcStateSchema, raw);
  return value === undefined ? { kind: 'none' } : { kind, state: value };
}
