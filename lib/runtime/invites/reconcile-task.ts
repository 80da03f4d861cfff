// The scheduled reconciliation: runs invites.reconcile for every organisation that can hold a receipt, within the run's budget, resuming where it stopped.
import * as z from 'zod';
import { INVITE_RECEIPT_TTL_SECONDS, INVITE_TTL_SECONDS } from '../../keys/index.ts';
import type { CronBudget } from '../cron-task/budget.ts';
import { resumeFromCursor } from '../cron-task/cursor.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import { redisCall } from '../../redis/index.ts';
import type { Deps } from '../../deps.ts';
import { organizationsWithInvitesSince } from './invite-organizations.ts';
import { reconcileInvites, type ReconcileReport } from './reconcile-invites.ts';

const NAME = 'invite-reconcile';
const ORGANIZATIONS_PER_PAGE = 100;
/** Past the invite and receipt TTLs: clock skew between instances. */
const DISCOVERY_MARGIN_SECONDS = 15 * 60;
/** Receipts younger than this are left to their own caller, whose transaction may still be running (reconcile's default). */
const GRACE_SECONDS = 30;
const RECEIPTS_PER_CALL = 100;
/** Kept back for the cursor write that ends every run. */
const CURSOR_WRITE = 1;

/**
 * invites.reconcile does not count its own commands, so a call is charged at most what it can cost. Per call: the
 * receipts-due EVALSHA and its range read, the outcomes read, the forget EVALSHA. Per receipt fetched: a GET, and a
 * ZREM when its receipt expired. Per receipt it tries to finish: the outcome transaction (5 statements), the who-won
 * read, and a give-back (EVALSHA + 14 commands). Per receipt forgotten: one ZREM.
 */
const PER_CALL = 4;
const PER_FETCHED = 2;
const PER_FINISH = 21;
const PER_FORGOTTEN = 1;
const WORST_PER_RECEIPT = PER_FETCHED + PER_FINISH + PER_FORGOTTEN;

const cursorSchema = z.uuid();

export interface InviteReconcileTaskReport extends TaskReport {
  /** Organisations whose due receipts were all visited in this run. */
  organizations: number;
  finished: number;
  alreadyFinished: number;
  pending: number;
}

/**
 * Which organisations: those with an `invite.created` row within the invite TTL plus the receipt TTL (a receipt is
 * written by an accept or cancel of a live invite and lives one receipt TTL), from PostgreSQL. One pipeline of
 * ZCOUNTs per page tells which have receipts past the grace period; only those are reconciled. Cursor: the last
 * organisation handled. Finishing is exactly-once by invite_outcomes' primary key, so runs at once are harmless.
 */
export const inviteReconcileTask: CronTask = {
  name: NAME,
  async run(deps, budget) {
    const report: InviteReconcileTaskReport = {
      task: NAME,
      visited: 0,
      removed: 0,
      repaired: 0,
      commands: 0,
      done: false,
      organizations: 0,
      finished: 0,
      alreadyFinished: 0,
      pending: 0,
    };
    const spentBefore = budget.used();
    await resumeFromCursor(deps, budget, NAME, (stored) => {
      // A cursor this version cannot read starts a new pass: reconciling twice finishes nothing twice.
      const parsed = cursorSchema.safeParse(stored);
      return reconcileFrom(deps, budget, parsed.success ? parsed.data : null, report);
    });
    report.commands = budget.used() - spentBefore;
    return report;
  },
};

async function reconcileFrom(
  deps: Deps,
  budget: CronBudget,
  start: string | null,
  report: InviteReconcileTaskReport,
): Promise<string | null> {
  let after = start;
  const since = new Date(deps.clock.now() - (INVITE_TTL_SECONDS + INVITE_RECEIPT_TTL_SECONDS + DISCOVERY_MARGIN_SECONDS) * 1000);
  for (;;) {
    if (budget.exhausted() || budget.commandsLeft() - CURSOR_WRITE < 2) return after;
    budget.spend(1);
    const page = await organizationsWithInvitesSince(deps, { since, after, limit: ORGANIZATIONS_PER_PAGE });
    const affordable = page.slice(0, Math.max(0, budget.commandsLeft() - CURSOR_WRITE));
    const due = await dueReceipts(deps, budget, affordable);
    for (const [i, organizationId] of affordable.entries()) {
      if (!(await reconcileOrganization(deps, budget, organizationId, due[i] ?? 0, report))) return after;
      after = organizationId;
      report.organizations += 1;
    }
    if (affordable.length < page.length) return after;
    if (page.length < ORGANIZATIONS_PER_PAGE) break;
  }
  report.done = true;
  return null;
}

/** How many receipts each organisation has listed past the grace period: one pipeline, one ZCOUNT each. */
async function dueReceipts(deps: Deps, budget: CronBudget, organizationIds: string[]): Promise<number[]> {
  if (organizationIds.length === 0) return [];
  const listedBefore = Math.floor(deps.clock.now() / 1000) - GRACE_SECONDS;
  budget.spend(organizationIds.length);
  const replies = await redisCall('invites.reconcile.due', () => {
    const pipeline = deps.redis.retrySafe.pipeline();
    for (const id of organizationIds) pipeline.zcount(deps.keys.inviteReceiptsByOrg(id), '-inf', listedBefore);
    return pipeline.exec();
  });
  return replies.map((reply) => (typeof reply === 'number' && Number.isSafeInteger(reply) && reply > 0 ? reply : 0));
}

/** Reconciles while receipts are due and the budget covers a call's worst case; false when the budget stopped it. */
async function reconcileOrganization(
  deps: Deps,
  budget: CronBudget,
  organizationId: string,
  due: number,
  report: InviteReconcileTaskReport,
): Promise<boolean> {
  let left = due;
  while (left > 0) {
    const limit = Math.min(left, RECEIPTS_PER_CALL, Math.floor((budget.commandsLeft() - CURSOR_WRITE - PER_CALL) / WORST_PER_RECEIPT));
    if (budget.exhausted() || limit < 1) return false;
    const result = await reconcileInvites(deps, { organizationId, limit, graceSeconds: GRACE_SECONDS });
    budget.spend(charge(result, limit));
    report.visited += result.visited;
    report.removed += result.finished + result.alreadyFinished;
    report.finished += result.finished;
    report.alreadyFinished += result.alreadyFinished;
    report.pending += result.pending;
    // Dropped (expired) and forgotten receipts leave the list; pending ones stay for the next pass.
    const progressed = limit - result.visited + result.finished + result.alreadyFinished;
    if (progressed <= 0) break;
    left -= progressed;
  }
  return true;
}

function charge(result: ReconcileReport, limit: number): number {
  const forgotten = result.finished + result.alreadyFinished;
  // The receipts-due EVALSHA and its range read; the outcomes read when a receipt was found; the forget script.
  const calls = 2 + (result.visited > 0 ? 1 : 0) + (forgotten > 0 ? 1 : 0);
  return calls + PER_FETCHED * limit + PER_FINISH * (result.finished + result.pending) + PER_FORGOTTEN * forgotten;
}
