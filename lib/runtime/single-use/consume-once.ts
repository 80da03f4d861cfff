// singleUse.consume: GET and DEL in one script, so two consumers can never both read the value (no GETDEL: Redis 6.0).
import type * as z from 'zod';
import type { SingleUseKind } from '../../keys/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { singleUseKey } from './single-use-token.ts';

/**
 * KEYS[1] the single-use key (passwordResetToken, ssoHandoffCode or consoleDevLogin; the OIDC callback consumes its state with lib/auth/oidc/consume-state.ts)
 * Returns the value, deleted in the same step, or false when there is none. Run once (atMostOnce): a retry after a
 * lost reply would find nothing, and the caller's answer would then be "invalid" for a token it did consume.
 */
export const CONSUME_ONCE = defineScript({
  name: 'single-use.consume',
  keys: ['token'],
  args: [],
  source: `
local token_key = KEYS[1]
local value = redis.call('GET', token_key)
if value then redis.call('DEL', token_key) end
return value
`,
});

export type ConsumeOutcome<T> = { ok: true; value: T } | { ok: false };

/**
 * Consumes a token once. Unknown, expired, already consumed, malformed, and a value that fails its schema are one
 * outcome: `{ ok: false }`. A Redis that does not answer throws RedisUnavailableError (503): these are security state,
 * with no fallback (docs/design/failure-semantics.md#failure-semantics).
 */
export async function consumeOnce<S extends z.ZodType>(
  deps: Deps,
  kind: SingleUseKind,
  schema: S,
  token: string,
): Promise<ConsumeOutcome<z.output<S>>> {
  const key = await singleUseKey(deps.keys, kind, token);
  if (key === undefined) return { ok: false };
  const raw = await runScript(deps.redis.atMostOnce, CONSUME_ONCE, { keys: { token: key } });
  const value = decodeJson(schema, raw);
  return value === undefined ? { ok: false } : { ok: true, value };
}
