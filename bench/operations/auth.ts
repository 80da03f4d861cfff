// Operation benches of sign-in: login (the KDF included) with the right password, a wrong one and an unknown email, and refresh.
import { uuidv7 } from 'uuidv7';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../../local/stack/fixtures.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

/** Calls per account: under the per-(organisation, email) login throttle, so the run measures logins, not its 429. */
const PER_ACCOUNT = THROTTLE_LIMITS.login.limit - 2;
// Each setPassword runs the KDF once; two at a time is what the two cores take.
const SETUP_CONCURRENCY = 2;

type Account = { organizationId: string; email: string; password: string };

/** One organisation, admin and password per PER_ACCOUNT calls (the admin is the account that signs in). */
async function accounts(stack: BenchStack, count: number): Promise<Account[]> {
  return mapConcurrently(Math.ceil(count / PER_ACCOUNT), SETUP_CONCURRENCY, async () => {
    const org = await stack.seedOrganization();
    const password = `bench-${uuidv7()}`;
    await setPassword(stack.db, org.adminId, password);
    return { organizationId: org.organizationId, email: org.adminEmail, password };
  });
}

/**
 * A caller address of its own per call and bench (10.<bench>.<hi>.<lo>), so the per-IP login throttle (100 per 15
 * minutes) never answers instead of the operation; the composed app reads it from TEST_CLIENT_IP_HEADER.
 */
const callerIp = (bench: number, i: number) => `10.${bench}.${(i >> 8) & 255}.${i & 255}`;

function login(stack: BenchStack, body: { organizationId: string; email: string; password: string }, ip: string) {
  return stack.request('POST', '/auth/login', { body, headers: { [TEST_CLIENT_IP_HEADER]: ip } });
}

/** A refresh from its own address per call, so the per-address refresh-ip limiter (600 per 15 minutes) never answers. */
function refresh(stack: BenchStack, refreshToken: string, ip: string) {
  return stack.request('POST', '/auth/refresh', { body: { refreshToken }, headers: { [TEST_CLIENT_IP_HEADER]: ip } });
}

export const loginBench: OperationBench = {
  name: 'auth.login',
  describe: `POST /auth/login, right password: both throttle hits, the user read, one PBKDF2 verification, session + refresh hash + audit in one transaction, a signed token`,
  async prepare(stack, count) {
    const people = await accounts(stack, count);
    return async (i) => {
      const account = people[Math.floor(i / PER_ACCOUNT)] as Account;
      await expectStatus('auth.login', await login(stack, account, callerIp(1, i)), 200);
    };
  },
};

export const loginWrongPasswordBench: OperationBench = {
  name: 'auth.login.wrong',
  describe: 'POST /auth/login of a known email with a wrong password: the same steps up to the verification, then 401',
  async prepare(stack, count) {
    const people = await accounts(stack, count);
    return async (i) => {
      const account = people[Math.floor(i / PER_ACCOUNT)] as Account;
      const body = { ...account, password: `${account.password}-wrong` };
      await expectStatus('auth.login.wrong', await login(stack, body, callerIp(2, i)), 401);
    };
  },
};

export const loginUnknownBench: OperationBench = {
  name: 'auth.login.unknown',
  describe: 'POST /auth/login of an email no member of the organisation has: the decoy derivation instead of a hash, then 401',
  async prepare(stack) {
    const org = await stack.seedOrganization();
    return async (i) => {
      // A fresh email per call: an unknown email is counted per (organisation, email) like any other.
      const body = { organizationId: org.organizationId, email: `nobody-${i}@example.test`, password: 'not-anyones-password' };
      await expectStatus('auth.login.unknown', await login(stack, body, callerIp(3, i)), 401);
    };
  },
};

export const refreshBench: OperationBench = {
  name: 'auth.refresh',
  describe: "POST /auth/refresh with the previous call's refresh token: one PostgreSQL function rotates it, then a signed token",
  async prepare(stack) {
    const [account] = await accounts(stack, 1);
    const first = await login(stack, account as Account, callerIp(4, 0));
    if (first.status !== 200) throw new Error(`auth.refresh: the setup login answered ${first.status}`);
    let refreshToken = ((await first.json()) as { refreshToken: string }).refreshToken;
    return async (i) => {
      const response = await refresh(stack, refreshToken, callerIp(4, i + 1));
      const body = (await response.json()) as { refreshToken?: string };
      // A refresh that fails would end the chain (and a reused token the session): stop the run instead.
      if (response.status !== 200 || body.refreshToken === undefined)
        throw new Error(`auth.refresh: expected HTTP 200, got ${response.status}`);
      refreshToken = body.refreshToken;
    };
  },
};

export const refreshRetryBench: OperationBench = {
  name: 'auth.refresh.retry',
  describe:
    'POST /auth/refresh with a token already spent, its successor unused, within the grace: the same PostgreSQL function answers the same successor, writing nothing, then a signed token',
  async prepare(stack) {
    const [account] = await accounts(stack, 1);
    const first = await login(stack, account as Account, callerIp(5, 0));
    if (first.status !== 200) throw new Error(`auth.refresh.retry: the setup login answered ${first.status}`);
    const spent = ((await first.json()) as { refreshToken: string }).refreshToken;
    // Spent once, untimed: every timed call is the retry of a refresh whose reply was lost.
    const rotated = await refresh(stack, spent, callerIp(5, 0));
    const successor = ((await rotated.json()) as { refreshToken?: string }).refreshToken;
    if (rotated.status !== 200 || successor === undefined)
      throw new Error(`auth.refresh.retry: the setup refresh answered ${rotated.status}`);
    return async (i) => {
      const response = await refresh(stack, spent, callerIp(5, i + 1));
      const body = (await response.json()) as { refreshToken?: string };
      // Past the grace (REFRESH_RETRY_GRACE_SECONDS in bench/stack.ts) the retry is reuse and ends the session: stop.
      if (response.status !== 200 || body.refreshToken !== successor)
        throw new Error(`auth.refresh.retry: expected HTTP 200 with the same successor, got ${response.status}`);
    };
  },
};

export const authBenches: OperationBench[] = [loginBench, loginWrongPasswordBench, loginUnknownBench, refreshBench, refreshRetryBench];
