// The active context: its read, GET /auth/context of a session whose context is set (target: 1 main-store round trip,
// sent beside the revocation check), and a switch of organisation (1 PostgreSQL, then 1 main-store round trip).
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { setPassword } from '../../local/stack/fixtures.ts';
import { denylistStateSchema, type DenylistState } from '../../lib/keys/index.ts';
import { CLOCK_READ_EVERY_MS, REPLICATION_GRACE_MS } from '../../lib/runtime/revocation/revocation-clock.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS } from '../stack.ts';

export const contextGetBench: OperationBench = {
  name: 'auth.context.get',
  roundTrips: { redis: 2, revocation: 1, pg: 0 },
  describe: 'GET /auth/context with a context set: one GET on the main store, started beside the revocation check',
  async prepare(stack) {
    // Bound, as sign-in issues it.
    const org = await stack.seedOrganization({ bound: true });
    const token = org.adminToken;
    // Set once, untimed; the timed calls only read it.
    const body = { organizationId: org.organizationId, locationId: org.locationId };
    await expectStatus('auth.context.put', await stack.request('PUT', '/auth/context', { token, body }), 200);
    return async (i) => {
      const response = await stack.request('GET', '/auth/context', { token });
      if (i > 0) return expectStatus('auth.context.get', response, 200);
      // The first call proves the figures are for a stored context, not a 404.
      const read = response.status === 200 ? ((await response.json()) as { context: { organizationId: string } }).context : undefined;
      if (read?.organizationId !== org.organizationId) throw new Error(`auth.context.get: no context read (HTTP ${response.status})`);
    };
  },
};

export const contextGetStateMissingBench: OperationBench = {
  name: 'auth.context.get.state-missing',
  describe:
    "the same read while the denylist's state is missing (a revocation store that lost its data): the check asks PostgreSQL for the session; a held repair lock keeps it missing",
  async prepare(stack, count) {
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId, sessionId: uuidv7(), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
    const body = { organizationId: org.organizationId, locationId: org.locationId };
    await expectStatus('auth.context.put', await stack.request('PUT', '/auth/context', { token, body }), 200);
    // Straight on Redis, outside the proxies: the state goes, and a lock nobody releases keeps any repair from running.
    const stateKey = stack.deps.keys.denylistState();
    const lockKey = stack.deps.keys.denylistRepairLock();
    await stack.redis.del(stateKey);
    await stack.redis.set(lockKey, '0'.repeat(32), 'PX', 600_000);
    return async (i) => {
      await expectStatus('auth.context.get.state-missing', await stack.request('GET', '/auth/context', { token }), 200);
      if (i < count - 1) return;
      // The benches after this one measure the healthy path again.
      // Whole and up to the revocation clock, as a completed pass leaves it.
      const clock = await stack.db.query<{ seq: string }>('SELECT seq::text AS seq FROM revocation_clock');
      const applied = Number(clock.rows[0]?.seq ?? 0);
      const whole: DenylistState = { state: 'whole', epoch: uuidv7(), sinceMs: Date.now(), position: null, applied, passClock: null };
      await stack.redis.set(stateKey, JSON.stringify(denylistStateSchema.parse(whole)), 'EX', 3_600);
      await stack.redis.del(lockKey);
    };
  },
};

export const contextSwitchBench: OperationBench = {
  name: 'auth.context.switch',
  roundTrips: { redis: 2, revocation: 1, pg: 1 },
  describe:
    'PUT /auth/context to the other of two organisations by a password session, back and forth: the revocation check, then one PostgreSQL statement (auth_switch_session), then the context script beside the signing',
  async prepare(stack) {
    const home = await stack.seedOrganization();
    const away = await stack.seedOrganization();
    await stack.db.query(
      "INSERT INTO role_assignments (id, user_id, organization_id, location_id, role_code) VALUES ($1, $2, $3, NULL, 'OrganizationAdmin')",
      [uuidv7(), home.adminId, away.organizationId],
    );
    const password = `bench-${uuidv7()}`;
    await setPassword(stack.db, home.adminId, password);
    // Opened through the API, untimed: only sign-in's sessions are bound, and only they switch.
    const login = await stack.request('POST', '/auth/login', {
      body: { organizationId: home.organizationId, email: home.adminEmail, password },
      headers: { [TEST_CLIENT_IP_HEADER]: '10.7.0.1' },
    });
    if (login.status !== 200) throw new Error(`auth.context.switch: the setup login answered ${login.status}`);
    // Each switch's answer carries the token of the next one (the one before acts nowhere once it has switched).
    let token = ((await login.json()) as { accessToken: string }).accessToken;
    const targets = [away.organizationId, home.organizationId];
    return async (i) => {
      const organizationId = targets[i % 2]!;
      const response = await stack.request('PUT', '/auth/context', { token, body: { organizationId } });
      if (response.status !== 200) return expectStatus('auth.context.switch', response, 200);
      const body = (await response.json()) as { session?: { accessToken: string; organizationId: string } };
      if (body.session?.organizationId !== organizationId) throw new Error('auth.context.switch: the answer carries no switched session');
      token = body.session.accessToken;
    };
  },
};

export const revocationCheckBehindBench: OperationBench = {
  name: 'revocation.check.behind',
  roundTrips: { redis: 2, revocation: 1, pg: 1 },
  describe:
    "the same read while the denylist's state is whole but behind the revocation clock (a store that lost its newest writes): the check asks PostgreSQL for the session; a held repair lock keeps it behind",
  async prepare(stack, count) {
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId, sessionId: uuidv7(), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
    const body = { organizationId: org.organizationId, locationId: org.locationId };
    await expectStatus('auth.context.put', await stack.request('PUT', '/auth/context', { token, body }), 200);
    // One revocation moves the clock; the state is then put back one short of it, as a store that lost that write.
    const other = await stack.token({ userId: org.adminId, sessionId: uuidv7(), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
    await expectStatus('auth.logout', await stack.request('POST', '/auth/logout', { token: other }), 204);
    const stateKey = stack.deps.keys.denylistState();
    const lockKey = stack.deps.keys.denylistRepairLock();
    const clock = await stack.db.query<{ seq: string }>('SELECT seq::text AS seq FROM revocation_clock');
    const applied = Number(clock.rows[0]?.seq ?? 0);
    const state = (point: number): string =>
      JSON.stringify(
        denylistStateSchema.parse({
          state: 'whole',
          epoch: uuidv7(),
          sinceMs: Date.now(),
          position: null,
          applied: point,
          passClock: null,
        }),
      );
    // Straight on Redis, outside the proxies; a lock nobody releases keeps the catch-up from running.
    await stack.redis.set(stateKey, state(applied - 1), 'EX', 3_600);
    await stack.redis.set(lockKey, '0'.repeat(32), 'PX', 600_000);
    // The isolate's next clock read, and the grace after it, fall before the warm-up calls end.
    await new Promise((resolve) => setTimeout(resolve, CLOCK_READ_EVERY_MS + REPLICATION_GRACE_MS));
    return async (i) => {
      await expectStatus('revocation.check.behind', await stack.request('GET', '/auth/context', { token }), 200);
      if (i < count - 1) return;
      // The benches after this one measure the healthy path again.
      await stack.redis.set(stateKey, state(applied), 'EX', 3_600);
      await stack.redis.del(lockKey);
    };
  },
};
