// After the revocation store loses its data with 10 000 sessions revoked in the window: seconds until the denylist is
// whole again under steady traffic (request-started repairs), and what the scheduled task alone would need.
import { uuidv7 } from 'uuidv7';
import { createBudget } from '../../lib/runtime/cron-task/budget.ts';
import { denylistRepairTask } from '../../lib/runtime/revocation/index.ts';
import type { FigureBench, FigureResult } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS, startBenchStack } from '../stack.ts';

const REVOKED = 10_000;
/** One authenticated request this often, from one isolate: steady, light traffic. */
const REQUEST_EVERY_MS = 20;

export const denylistRepairBench: FigureBench = {
  name: 'denylist.repair',
  describe:
    `${REVOKED} sessions revoked within the lifetime, then the whole Redis flushed: .seconds until the denylist is whole ` +
    `again with one request every ${REQUEST_EVERY_MS} ms (each isolate starts at most one repair a second, one at a time ` +
    'across isolates, at the scheduled budget); .scheduledRuns: runs of the scheduled task alone for the same window',
  async measure(teardown): Promise<FigureResult[]> {
    // A stack of its own: the flush and the 10 000 sessions touch no other bench.
    const stack = await startBenchStack(teardown, { DATABASE_URL: process.env.DATABASE_URL });
    await stack.db.query(
      `INSERT INTO sessions (id, user_id, revoked_at)
         SELECT row.id, row.id, now() - (random() * interval '5 minutes') FROM unnest($1::uuid[]) AS row(id)`,
      [Array.from({ length: REVOKED }, () => uuidv7())],
    );
    const org = await stack.seedOrganization();
    const token = await stack.token({ userId: org.adminId, sessionId: uuidv7(), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
    const stateKey = stack.deps.keys.denylistState();
    const whole = async () => {
      const raw = await stack.redis.get(stateKey);
      return raw !== null && (JSON.parse(raw) as { state: string }).state === 'whole';
    };

    await stack.redis.flushall();
    const started = performance.now();
    let requests = 0;
    while (!(await whole())) {
      if (performance.now() - started > 300_000) throw new Error('denylist.repair: not whole within 5 minutes');
      const response = await stack.request('GET', '/auth/context', { token });
      await response.body?.cancel();
      if (response.status !== 404) throw new Error(`denylist.repair: a live session answered ${response.status}`);
      requests += 1;
      await new Promise((resolve) => setTimeout(resolve, REQUEST_EVERY_MS));
    }
    const seconds = (performance.now() - started) / 1000;

    // The scheduled task alone, from an empty store, at the configured budget.
    await stack.redis.flushall();
    const limits = { commands: stack.config.cron.taskCommandBudget, timeMs: stack.config.cron.taskTimeBudgetMs };
    let runs = 0;
    const scheduledStarted = performance.now();
    do {
      runs += 1;
      await denylistRepairTask.run(stack.deps, createBudget(limits, stack.deps.clock), { correlationId: 'bench' });
    } while (!(await whole()) && runs < 1_000);
    const scheduledMs = performance.now() - scheduledStarted;

    return [
      {
        name: 'denylist.repair',
        figures: {
          revoked: REVOKED,
          seconds: Math.round(seconds * 10) / 10,
          requestsMeanwhile: requests,
          scheduledRuns: runs,
          msPerScheduledRun: Math.round((scheduledMs / runs) * 10) / 10,
          budget: limits.commands,
        },
      },
    ];
  },
};
