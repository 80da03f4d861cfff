// signInPolicy.consumeEnrolment: one script spends an enrolment token and, for a TOTP code, burns the code's step, so
// only one caller ever opens the session it stands for and the confirming code cannot sign in again.
import { sha256Hex } from '../../crypto/index.ts';
import { decodeJson, defineScript, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { enrolmentRecord, type EnrolmentRecord } from '../../keys/index.ts';
import { LUA_SAME } from '../../runtime/invites/lua.ts';
import { readEnrolmentToken } from './enrolment-token.ts';

/**
 * KEYS (the user's hash tag): [1] the enrolment record (mfaEnrolment), [2] the replay guard of the step the code
 * matched (mfaTotpUsed), or the record's key again when the factor has no step (a passkey).
 * ARGV: [1] SHA-256 hex of the presented token, [2] the guard's TTL in ms ('0': no guard to set).
 * Returns {0} no such record, or not this token's (nothing changed); {2} the step was already used (nothing changed:
 * the token stays good for the next code); {1, record} spent: the record deleted and the step burned, once.
 * GET then DEL inside the script (no GETDEL: Redis 6.0).
 */
export const CONSUME_MFA_ENROLMENT = defineScript({
  name: 'signInPolicy.consumeEnrolment',
  keys: ['enrolment', 'replay'],
  args: ['verifier', 'replayTtlMs'],
  source: `
local enrolment_key = KEYS[1]
local replay_key = KEYS[2]
local verifier = ARGV[1]
local replay_ttl_ms = tonumber(ARGV[2])
${LUA_SAME}
local raw = redis.call('GET', enrolment_key)
if not raw then return {0} end
local ok, record = pcall(cjson.decode, raw)
if not ok or type(record) ~= 'table' or not same(record['verifier'], verifier) then return {0} end
if replay_ttl_ms > 0 then
  if redis.call('EXISTS', replay_key) == 1 then return {2} end
  redis.call('SET', replay_key, '1', 'PX', replay_ttl_ms)
end
redis.call('DEL', enrolment_key)
return {1, raw}
`,
});

export type ConsumeEnrolmentOutcome = { ok: true; record: EnrolmentRecord } | { ok: false; reason: 'invalid' | 'step-used' };

/**
 * `totpStep`: the step the confirming code matched, with its guard's TTL; omitted for a factor without steps (a
 * passkey: confirm-passkey.ts). atMostOnce: a late landing spends the token while the caller got a 503;
 * it signs in again.
 */
export async function consumeEnrolment(
  deps: Deps,
  input: { token: string; totpStep?: { step: number; ttlMs: number } },
): Promise<ConsumeEnrolmentOutcome> {
  const ids = readEnrolmentToken(input.token);
  if (ids === undefined) return { ok: false, reason: 'invalid' };
  const enrolment = deps.keys.mfaEnrolment(ids.userId, ids.enrolmentId);
  const reply = await runScript(deps.redis.atMostOnce, CONSUME_MFA_ENROLMENT, {
    keys: { enrolment, replay: input.totpStep === undefined ? enrolment : deps.keys.mfaTotpUsed(ids.userId, input.totpStep.step) },
    args: { verifier: await sha256Hex(input.token), replayTtlMs: input.totpStep?.ttlMs ?? 0 },
  });
  const [code, raw] = Array.isArray(reply) ? reply : [];
  if (code === 2) return { ok: false, reason: 'step-used' };
  const record = code === 1 ? decodeJson(enrolmentRecord, raw) : undefined;
  return record === undefined ? { ok: false, reason: 'invalid' } : { ok: true, record };
}
