// The scheduled task that sends due deliveries: organisations in turn from a cursor, each at most a few per run.
import type { CronTask, TaskReport } from '../../runtime/cron-task/task.ts';
import { resumeFromCursor } from '../../runtime/cron-task/cursor.ts';
import type { CronBudget } from '../../runtime/cron-task/budget.ts';
import { deliver, type DeliverReport } from './deliver.ts';
import { dueDeliveries } from './due-deliveries.ts';

const TASK_NAME = 'webhook-delivery';

/** One organisation's deliveries sent in one run, at most: a tenant with a backlog of thousands takes its turn with the rest. */
export const DELIVERIES_PER_ORGANIZATION_PER_RUN = 20;
/** Organisations per page (one query); a run goes on page after page while its budget lasts. */
const ORGANIZATIONS_PER_PAGE = 25;
/** Commands one delivery costs: its lease taken and given back, and its outcome written (the read is shared per page). */
const COMMANDS_PER_DELIVERY = 3;

/**
 * Bounded (a page is sized to the commands left, and no send starts past the time budget), resumable (the cursor is the
 * last organisation served: the next run starts after it, so the organisations late in the list get their turn when
 * runs stop early), idempotent and safe beside itself and the requests' sends (the leases, and the fenced outcome).
 * One run visits each organisation at most once: from the cursor to the end, then from the start up to the cursor.
 */
export const webhookDeliveryTask: CronTask = {
  name: TASK_NAME,
  async run(deps, budget, context) {
    const totals: DeliverReport = { skipped: 0, succeeded: 0, retried: 0, failed: 0, fenced: 0, endpointsDisabled: 0 };
    let visited = 0;
    let done = false;
    // Room for the cursor read, one page and its deliveries, and the cursor write.
    if (budget.commandsLeft() < 3 + COMMANDS_PER_DELIVERY || budget.exhausted()) return report(budget, totals, visited, done);
    const deadlineAtMs = deps.clock.now() + budget.msLeft();
    await resumeFromCursor(deps, budget, TASK_NAME, async (stored) => {
      const passes: Array<{ after: string | null; upTo: string | null }> = [{ after: stored, upTo: null }];
      if (stored !== null) passes.push({ after: null, upTo: stored });
      let cursor = stored;
      for (const pass of passes) {
        let after = pass.after;
        for (;;) {
          const page = pageSize(budget);
          if (page === undefined) return cursor;
          budget.spend(1);
          const due = await dueDeliveries(deps, { after, upTo: pass.upTo, ...page });
          if (due.refs.length > 0) {
            budget.spend(due.refs.length * COMMANDS_PER_DELIVERY);
            visited += due.refs.length;
            add(totals, await deliver(deps, due.refs, { correlationId: context.correlationId, deadlineAtMs }));
          }
          if (due.lastOrganizationId !== undefined) cursor = after = due.lastOrganizationId;
          if (due.end) break;
        }
      }
      done = true;
      // A full turn: the next run starts from the first organisation again.
      return null;
    });
    return report(budget, totals, visited, done);
  },
};

/** The page the commands left pay for, keeping one for the cursor write; undefined when not even one delivery fits. */
function pageSize(budget: CronBudget): { organizations: number; perOrganization: number } | undefined {
  if (budget.exhausted()) return undefined;
  const deliveries = Math.floor((budget.commandsLeft() - 2) / COMMANDS_PER_DELIVERY);
  if (deliveries < 1) return undefined;
  const perOrganization = Math.min(DELIVERIES_PER_ORGANIZATION_PER_RUN, deliveries);
  return { organizations: Math.max(1, Math.min(ORGANIZATIONS_PER_PAGE, Math.floor(deliveries / perOrganization))), perOrganization };
}

function add(totals: DeliverReport, run: DeliverReport): void {
  for (const key of Object.keys(totals) as Array<keyof DeliverReport>) totals[key] += run[key];
}

function report(budget: CronBudget, totals: DeliverReport, visited: number, done: boolean): TaskReport {
  return {
    task: TASK_NAME,
    visited,
    removed: totals.succeeded + totals.failed,
    repaired: totals.retried,
    commands: budget.used(),
    done,
  };
}
