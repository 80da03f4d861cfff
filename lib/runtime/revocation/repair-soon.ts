// A repair started by a request that found the denylist not whole, or whole but behind the revocation clock: one at a
// time across every isolate (a lock on the revocation store), at most one try per isolate a second, in runs budgeted as
// the scheduled task's, never on the answer's path. Behind, it is the targeted catch-up alone, not a walk of the window.
import { uuidv7 } from 'uuidv7';
import { bytesToHex, randomBytes } from '../../crypto/index.ts';
import { DENYLIST_REPAIR_LOCK_MAX_SECONDS } from '../../keys/index.ts';
import { errorKind } from '../../log/logger.ts';
import { redisCall, runScript } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { createBudget } from '../cron-task/budget.ts';
import { DELETE_IF_EQUALS } from '../compare-and-delete.ts';
import { catchUpDenylist } from './catch-up-denylist.ts';
import { beginRepairPass } from './denylist-state.ts';
import { denylistRepairTask } from './repair-denylist.ts';
import { readRevocationClock } from './revocation-clock.ts';
import type { CronBudget } from '../cron-task/budget.ts';

/** `pass`: the state is lost or a pass is under way; `catch-up`: whole, but behind the revocation clock. */
export type RepairKind = 'pass' | 'catch-up';

/** What one run may go past its time budget (a page in hand finishes), inside the lock's TTL. */
const OVERRUN_MS = 5_000;
/** The lock lives this many task time budgets (plus the overrun): runs go on back to back while another still fits. */
const BUDGETS_PER_HOLD = 4;
/** Requests of one isolate while the denylist is not whole try the lock at most this often. */
const RETRY_EVERY_MS = 1_000;

const lastTry = new WeakMap<Deps, number>();

/**
 * Starts one budgeted repair unless this isolate tried within the last second; returns at once, true when it started
 * one (the lock may still be another's).
 */
export function repairSoon(deps: Deps, defer: ((work: Promise<unknown>) => void) | undefined, kind: RepairKind = 'pass'): boolean {
  const nowMs = deps.clock.now();
  if (nowMs - (lastTry.get(deps) ?? Number.NEGATIVE_INFINITY) < RETRY_EVERY_MS) return false;
  lastTry.set(deps, nowMs);
  const work = repairOnce(deps, kind).catch((error: unknown) => {
    deps.logger.warn('denylist_repair_failed', { trigger: 'request', errorKind: errorKind(error) });
  });
  if (defer === undefined) void work;
  else defer(work);
  return true;
}

async function repairOnce(deps: Deps, kind: RepairKind): Promise<void> {
  const { taskCommandBudget, taskTimeBudgetMs } = deps.config.cron;
  // Room for a few budgeted runs back to back (a window of thousands of revocations), within a platform's time after
  // the answer (Workers' waitUntil: 30 s) and never past the lock's TTL.
  const ttlMs = Math.min(DENYLIST_REPAIR_LOCK_MAX_SECONDS * 1000, BUDGETS_PER_HOLD * taskTimeBudgetMs + OVERRUN_MS);
  const owner = bytesToHex(randomBytes(16));
  const lockKey = deps.keys.denylistRepairLock();
  // A plain SET NX on the atMostOnce client: a retry that landed would read its own lock as another's and only skip.
  const taken = await redisCall('revocation.repairLock', () => deps.revocation.atMostOnce.set(lockKey, owner, { nx: true, px: ttlMs }));
  if (taken !== 'OK') return;
  const startedAt = deps.clock.now();
  try {
    let runs = 0;
    let visited = 0;
    let repaired = 0;
    let done = false;
    // Another run only while a whole budget and its overrun still fit under the lock.
    while (!done && deps.clock.now() - startedAt + taskTimeBudgetMs + OVERRUN_MS <= ttlMs) {
      const budget = createBudget({ commands: taskCommandBudget, timeMs: taskTimeBudgetMs }, deps.clock);
      const report =
        kind === 'catch-up' ? await catchUpRun(deps, budget) : await denylistRepairTask.run(deps, budget, { correlationId: uuidv7() });
      runs += 1;
      visited += report.visited;
      repaired += report.repaired;
      done = report.done;
    }
    deps.logger.info('denylist_repair', { trigger: 'request', kind, runs, visited, repaired, done });
  } finally {
    await runScript(deps.revocation.retrySafe, DELETE_IF_EQUALS, { keys: { target: lockKey }, args: { expected: owner } });
  }
}

/**
 * The targeted repair from the state's own point; a state lost since the check (a flush) gets the full pass instead,
 * which then begins here.
 */
async function catchUpRun(deps: Deps, budget: CronBudget): Promise<{ visited: number; repaired: number; done: boolean }> {
  budget.spend(2);
  const clock = await readRevocationClock(deps);
  const pass = await beginRepairPass(deps, clock.seq);
  if (pass.state !== 'whole') return denylistRepairTask.run(deps, budget, { correlationId: uuidv7() });
  if (pass.applied >= clock.seq) return { visited: 0, repaired: 0, done: true };
  return catchUpDenylist(deps, budget, pass);
}
