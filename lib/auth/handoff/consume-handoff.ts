// The exchange's one Redis step for an app that presents no client secret: one script counts the caller per (audience,
// address) (handoff-exchange), then consumes the code, so a flood of made-up codes from one address stops at the limit
// without a second round trip. An app that proves itself with its secret is exempt (lib/auth/handoff/exchange-handoff.ts).
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import { singleUse } from '../../runtime/single-use/index.ts';
import { singleUseKey } from '../../runtime/single-use/single-use-token.ts';
import { ipSubject, LUA_THROTTLE_HIT, retryAfter, throttleWindow } from '../../runtime/throttle/index.ts';
import type * as z from 'zod';
import type { Deps } from '../../deps.ts';
import { handoffSchema } from './handoff-code.ts';

type Handoff = z.output<typeof handoffSchema>;

/**
 * KEYS[1] the code's key (registry row ssoHandoffCode), KEYS[2] the caller's handoff-exchange counter (throttleCounter;
 * both under platform:{sso-handoff}, one slot)
 * ARGV[1] seconds left in the counter's window, ARGV[2] its limit
 * Returns {'limited', seconds left} (the code untouched), {'value', value} (deleted in this step) or {'none'}. Run once
 * (atMostOnce), as lib/runtime/single-use/consume-once.ts.
 */
export const CONSUME_HANDOFF_COUNTED = defineScript({
  name: 'handoff.consume-counted',
  keys: ['code', 'counter'],
  args: ['windowTtl', 'limit'],
  source: `
local code_key = KEYS[1]
local counter_key = KEYS[2]
local window_ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
${LUA_THROTTLE_HIT}
local count, ttl = hit_throttle(counter_key, window_ttl)
if count > limit then return {'limited', ttl} end
local value = redis.call('GET', code_key)
if not value then return {'none'} end
redis.call('DEL', code_key)
return {'value', value}
`,
});

export type ConsumeHandoffOutcome =
  { kind: 'consumed'; handoff: Handoff } | { kind: 'none' } | { kind: 'rate-limited'; retryAfterSeconds: number };

/** The counter's scope: the platform (no tenant is known before the code is read), under the codes' hash tag. */
const EXCHANGE_SCOPE = { kind: 'platform', tag: 'sso-handoff' } as const;

/** Redis not answering throws RedisUnavailableError (503), counter and code alike. A malformed code is neither looked up nor counted. */
export async function consumeHandoff(
  deps: Deps,
  input: { code: string; audience: string; clientIp: string | undefined; clientAuthenticated: boolean },
): Promise<ConsumeHandoffOutcome> {
  if (input.clientAuthenticated) {
    const consumed = await singleUse.consume(deps, 'sso-handoff', handoffSchema, input.code);
    return consumed.ok ? { kind: 'consumed', handoff: consumed.value } : { kind: 'none' };
  }
  const key = await singleUseKey(deps.keys, 'sso-handoff', input.code);
  if (key === undefined) return { kind: 'none' };
  const window = await throttleWindow(deps, {
    action: 'handoff-exchange',
    scope: EXCHANGE_SCOPE,
    subject: ipSubject(input.clientIp) + ' ' + input.audience,
  });
  const reply = await runScript(deps.redis.atMostOnce, CONSUME_HANDOFF_COUNTED, {
    keys: { code: key, counter: window.key },
    args: { windowTtl: window.ttlSeconds, limit: window.limit },
  });
  const [kind, raw] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (kind === 'limited') return { kind: 'rate-limited', retryAfterSeconds: retryAfter(raw, window.ttlSeconds) };
  const value = kind === 'value' ? decodeJson(handoffSchema, raw) : undefined;
  return value === undefined ? { kind: 'none' } : { kind: 'consumed', handoff: value };
}
