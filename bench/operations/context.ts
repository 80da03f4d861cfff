// The active context read: GET /auth/context of a session whose context is set (target: 1 main-store round trip, sent beside the revocation check).
import { uuidv7 } from 'uuidv7';
import { denylistStateSchema, type DenylistState } from '../../lib/keys/index.ts';
import { CLOCK_READ_EVERY_MS, REPLICATION_GRACE_MS } from '../../lib/runtime/revocation/revocation-clock.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS } from '../stack.ts';

export const contextGetBench: OperationBench = {
  name: 'auth.context.get',
  describe: 'GET /auth/context with a context set: one GET on the main store, started beside the revocation check',
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId, sessionId: uuidv7(), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
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

export const revocationCheckBehindBench: OperationBench = {
  name: 'revocation.check.behind',
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
