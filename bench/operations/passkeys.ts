// Passkey sign-in: POST /auth/passkeys/authentication/options (one script: the address counted, the challenge stored;
// no PostgreSQL), and …/verify of a fresh assertion (one script: the address counted, the challenge consumed; the
// credential read; the signature; the session's transaction with the counter's advance) and of a forged one.
import { uuidv7 } from 'uuidv7';
import { PASSKEY_CHALLENGE_TTL_SECONDS } from '../../lib/keys/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { SoftwarePasskey } from '../../local/stack/passkey-authenticator.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

const SETUP_CONCURRENCY = 8;

/**
 * A caller address of its own per call (10.<bench + 110>.<hi>.<lo>), so the per-address limiters (100 per 15 minutes)
 * never answer instead of the operation.
 */
const callerIp = (bench: number, i: number) => `10.${110 + bench}.${(i >> 8) & 255}.${i & 255}`;

const passkeyOf = (stack: BenchStack) =>
  SoftwarePasskey.create({ rpId: stack.config.passkeys.rpId, origin: stack.config.passkeys.origins[0]!, counter: 1 });

async function options(stack: BenchStack, organizationId: string, ip: string): Promise<string> {
  const response = await stack.request('POST', '/auth/passkeys/authentication/options', {
    body: { organizationId },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });
  const body = await response.clone().text();
  await expectStatus('passkey.options', response, 200);
  return (JSON.parse(body) as { challenge: string }).challenge;
}

const verify = (stack: BenchStack, organizationId: string, response: unknown, ip: string) =>
  stack.request('POST', '/auth/passkeys/authentication/verify', {
    body: { organizationId, response },
    headers: { [TEST_CLIENT_IP_HEADER]: ip },
  });

export const passkeyOptionsBench: OperationBench = {
  name: 'passkey.options',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe: 'POST /auth/passkeys/authentication/options: one script counts the address and stores the challenge; no PostgreSQL',
  async prepare(stack) {
    const org = await stack.seedOrganization();
    return async (i) => void (await options(stack, org.organizationId, callerIp(0, i)));
  },
};

export const passkeyAuthenticateBench: OperationBench = {
  name: 'passkey.authenticate',
  roundTrips: { redis: 1, revocation: 0, pg: 2 },
  describe: `POST /auth/passkeys/authentication/verify of a fresh assertion (one script: the address counted and the challenge consumed; the credential read; the signature; session + counter + audit transaction); challenges live ${PASSKEY_CHALLENGE_TTL_SECONDS} s, so a run must finish within that`,
  async prepare(stack, count) {
    const org = await stack.seedOrganization();
    // One member per call, each with a passkey written straight into PostgreSQL and a challenge issued through the route.
    const fixtures = await mapConcurrently(count, SETUP_CONCURRENCY, async (i) => {
      const userId = uuidv7();
      const passkey = await passkeyOf(stack);
      await stack.db.query('INSERT INTO users (id, email) VALUES ($1, $2)', [userId, `passkey-${userId.slice(-12)}@example.test`]);
      await stack.db.query(
        "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'Viewer')",
        [uuidv7(), userId, org.organizationId],
      );
      await stack.db.query(
        'INSERT INTO passkeys (id, user_id, credential_id, public_key, sign_count, name, created_at) VALUES ($1, $2, $3, $4, 1, $5, now())',
        [uuidv7(), userId, passkey.id, await passkey.cosePublicKey(), 'Bench'],
      );
      return passkey.assert(await options(stack, org.organizationId, callerIp(1, i)), { userHandle: null });
    });
    return async (i) => expectStatus('passkey.authenticate', await verify(stack, org.organizationId, fixtures[i]!, callerIp(2, i)), 200);
  },
};

export const passkeyAuthenticateForgedBench: OperationBench = {
  name: 'passkey.authenticate.forged',
  roundTrips: { redis: 1, revocation: 0, pg: 0 },
  describe:
    'POST /auth/passkeys/authentication/verify of an assertion naming a challenge never issued: one script (the address counted, nothing to consume), then 400; no PostgreSQL',
  async prepare(stack, count) {
    const org = await stack.seedOrganization();
    const passkey = await passkeyOf(stack);
    const forged = await mapConcurrently(count, SETUP_CONCURRENCY, () => passkey.assert(uuidv7().replaceAll('-', '').padEnd(43, 'A')));
    return async (i) =>
      expectStatus('passkey.authenticate.forged', await verify(stack, org.organizationId, forged[i]!, callerIp(3, i)), 400);
  },
};
