// signInPolicy.peekEnrolment: the record an enrolment token names, when the token is its own; nothing is changed. A
// forged, expired or spent token ends here, at one Redis read, before PostgreSQL or the secret box.
import { sha256Hex, timingSafeEqual } from '../../crypto/index.ts';
import { decodeJson, redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { enrolmentRecord, type EnrolmentRecord } from '../../keys/index.ts';
import { readEnrolmentToken } from './enrolment-token.ts';

/** Undefined for a malformed token (nothing read), an unknown or spent one, or another token's record. */
export async function peekEnrolment(deps: Deps, token: string): Promise<EnrolmentRecord | undefined> {
  const ids = readEnrolmentToken(token);
  if (ids === undefined) return undefined;
  const key = deps.keys.mfaEnrolment(ids.userId, ids.enrolmentId);
  const [raw, verifier] = await Promise.all([
    redisCall('signInPolicy.peekEnrolment', () => deps.redis.retrySafe.get<unknown>(key)),
    sha256Hex(token),
  ]);
  const record = decodeJson(enrolmentRecord, raw);
  if (record === undefined || record.userId !== ids.userId || !timingSafeEqual(record.verifier, verifier)) return undefined;
  return record;
}
