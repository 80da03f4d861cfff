// The second step of an MFA sign-in: POST /auth/mfa/verify of a fresh challenge with the right code (the per-address
// counter and the challenge's read in one pipeline, the factor, one script, then the session), of a forged token, and
// POST /auth/mfa/recover of one with an unused recovery code (a read, one script, then the session with the spend).
import { uuidv7 } from 'uuidv7';
import { base32Encode, randomBytes, sealSecret, totpCode, totpStep } from '../../lib/crypto/index.ts';
import { totpBinding } from '../../lib/auth/mfa/factor.ts';
import { issueChallengeToken } from '../../lib/auth/mfa/challenge-token.ts';
import { mfa } from '../../lib/auth/mfa/index.ts';
import { MFA_CHALLENGE_TTL_SECONDS } from '../../lib/auth/mfa/policy.ts';
import { generateRecoveryCodes, recoveryCodeHashes } from '../../lib/auth/mfa/recovery-codes.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

const SETUP_CONCURRENCY = 8;
/** Users written per INSERT of the fixtures. */
const FIXTURE_BATCH = 500;

interface MfaFixture {
  userId: string;
  secret: Uint8Array;
  challengeToken: string;
  /** One unused recovery code of the user (its hash is in user_mfa_recovery_codes). */
  recoveryCode: string;
}

/**
 * One user per call, each with a confirmed factor (written straight into PostgreSQL, sealed as enrolment seals it) and
 * a challenge issued through the runtime operation: every call is a first use of its code, never a replay.
 */
async function mfaUsers(stack: BenchStack, count: number): Promise<MfaFixture[]> {
  const org = await stack.seedOrganization();
  const enrolledAtMs = Date.now();
  const users = await mapConcurrently(count, SETUP_CONCURRENCY, async () => {
    const userId = uuidv7();
    const secret = randomBytes(20);
    const sealed = await sealSecret(stack.config.secretsKeys, base32Encode(secret), totpBinding(userId, enrolledAtMs));
    const recoveryCode = generateRecoveryCodes()[0]!;
    const [codeHash] = await recoveryCodeHashes(stack.config.indexHashKey, userId, [recoveryCode]);
    return { userId, secret, sealed, recoveryCode, codeHash: codeHash!, email: `mfa-${userId.slice(-12)}@example.test` };
  });
  for (let start = 0; start < users.length; start += FIXTURE_BATCH) {
    const batch = users.slice(start, start + FIXTURE_BATCH);
    const at = new Date(enrolledAtMs).toISOString();
    await stack.db.query('INSERT INTO users (id, email) SELECT * FROM unnest($1::uuid[], $2::text[])', [
      batch.map((u) => u.userId),
      batch.map((u) => u.email),
    ]);
    await stack.db.query(
      `INSERT INTO user_mfa (user_id, secret_ciphertext, secret_key_id, enrolled_at, confirmed_at)
       SELECT id, c, k, $4, $4 FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t (id, c, k)`,
      [batch.map((u) => u.userId), batch.map((u) => u.sealed.ciphertext), batch.map((u) => u.sealed.keyId), at],
    );
    await stack.db.query(
      'INSERT INTO user_mfa_recovery_codes (user_id, code_hash, created_at) SELECT id, h, $3 FROM unnest($1::uuid[], $2::text[]) AS t (id, h)',
      [batch.map((u) => u.userId), batch.map((u) => u.codeHash), at],
    );
  }
  return mapConcurrently(users.length, SETUP_CONCURRENCY, async (i) => {
    const user = users[i]!;
    const issued = await mfa.issueChallenge(stack.deps, {
      userId: user.userId,
      organizationId: org.organizationId,
      email: user.email,
      // The fixtures set no password: the epoch of a user whose password never changed.
      credentialEpoch: 0,
      correlationId: 'bench-setup',
    });
    return { userId: user.userId, secret: user.secret, challengeToken: issued.challengeToken, recoveryCode: user.recoveryCode };
  });
}

export const mfaVerifyBench: OperationBench = {
  name: 'mfa.verify',
  roundTrips: { redis: 2, revocation: 0, pg: 2 },
  describe: `POST /auth/mfa/verify of a fresh challenge with the right code (the per-address counter and the challenge's read in one pipeline, the factor read, one script, session + audit transaction); challenges live ${MFA_CHALLENGE_TTL_SECONDS} s, so a run must finish within that`,
  async prepare(stack, count) {
    const fixtures = await mfaUsers(stack, count);
    return async (i) => {
      const { secret, challengeToken } = fixtures[i]!;
      // The code of now (about 0.05 ms of HMAC inside the timed call): a run may cross step boundaries.
      const code = await totpCode(secret, totpStep(Date.now()));
      await expectStatus('mfa.verify', await verify(stack, { challengeToken, code }, callerIp(1, i)), 200);
    };
  },
};

/**
 * A caller address of its own per call (10.<bench + 100>.<hi>.<lo>), so the per-address mfa-verify-ip limiter (100 per
 * 15 minutes) never answers instead of the operation; the composed app reads it from TEST_CLIENT_IP_HEADER.
 */
const callerIp = (bench: number, i: number) => `10.${100 + bench}.${(i >> 8) & 255}.${i & 255}`;

function verify(stack: BenchStack, body: { challengeToken: string; code: string }, ip: string) {
  return stack.request('POST', '/auth/mfa/verify', { body, headers: { [TEST_CLIENT_IP_HEADER]: ip } });
}

export const mfaVerifyForgedBench: OperationBench = {
  name: 'mfa.verify.forged',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe:
    'POST /auth/mfa/verify of a well-formed challenge token that names no challenge: the per-address counter and one read of the challenge in one pipeline, then 401; no PostgreSQL round trip, no secret opened',
  async prepare(stack) {
    return async (i) => {
      // Well-formed (a user id, a challenge id, 32 random bytes): only Redis can tell it was never issued.
      const challengeToken = issueChallengeToken(uuidv7(), uuidv7());
      await expectStatus('mfa.verify.forged', await verify(stack, { challengeToken, code: '123456' }, callerIp(2, i)), 401);
    };
  },
};

export const mfaRecoverBench: OperationBench = {
  name: 'mfa.recover',
  roundTrips: { redis: 2, revocation: 0, pg: 2 },
  describe: `POST /auth/mfa/recover of a fresh challenge with an unused recovery code (the per-address counter and the challenge's read in one pipeline, code read, one script, spend + audit + session transaction); challenges live ${MFA_CHALLENGE_TTL_SECONDS} s, so a run must finish within that`,
  async prepare(stack, count) {
    const fixtures = await mfaUsers(stack, count);
    return async (i) => {
      const { challengeToken, recoveryCode } = fixtures[i]!;
      // An address of its own per call, as verify's: the per-address mfa-recover-ip limit (30 per 15 minutes) never answers instead.
      const headers = { [TEST_CLIENT_IP_HEADER]: callerIp(2, i) };
      await expectStatus(
        'mfa.recover',
        await stack.request('POST', '/auth/mfa/recover', { body: { challengeToken, recoveryCode }, headers }),
        200,
      );
    };
  },
};
