// The scheduled invite index cleanup: prunes every invite index of the organisations that can hold one, within the run's budget, resuming where it stopped.
import * as z from 'zod';
import { INVITE_TTL_SECONDS } from '../../keys/index.ts';
import type { CronBudget } from '../cron-task/budget.ts';
import { resumeFromCursor } from '../cron-task/cursor.ts';
import type { CronTask, TaskReport } from '../cron-task/task.ts';
import type { Deps } from '../../deps.ts';
import { organizationsWithInvitesSince } from './invite-organizations.ts';
import { pruneEmailIndexes, pruneOrgIndex, type PruneCounts } from './prune-indexes.ts';

const NAME = 'invite-index-cleanup';
/** Organisations read from PostgreSQL per query. */
const ORGANIZATIONS_PER_PAGE = 100;
/** Past the invite TTL: clock skew between instances (a create's audit time is read just before its script runs). */
const DISCOVERY_MARGIN_SECONDS = 15 * 60;
/** Most commands one script call may run, so no step holds Redis long from the tenants sharing it. */
const MAX_STEP_COMMANDS = 500;
/** A step is not started with less: below this a script may not get past its first batch. */
const MIN_STEP_COMMANDS = 16;
/** Kept back for the cursor write that ends every run. */
const CURSOR_WRITE = 1;

const positionSchema = z.strictObject({
  organizationId: z.uuid(),
  step: z.enum(['org-index', 'email-indexes']),
  /** org-index: live rank of the orphan check; email-indexes: rank in the registry of email indexes. */
  position: z.number().int().nonnegative(),
  /** email-indexes: live rank inside the email index at `position`. */
  indexOffset: z.number().int().nonnegative(),
});
type Position = z.infer<typeof positionSchema>;

const cursorSchema = z.strictObject({
  /** The last organisation finished in this pass (ids ascending); null at the start of a pass. */
  after: z.uuid().nullable(),
  /** The organisation a budget stopped in, and where. */
  current: positionSchema.optional(),
});
type Cursor = z.infer<typeof cursorSchema>;

export interface InviteCleanupReport extends TaskReport {
  /** Organisations whose indexes were all visited in this run. */
  organizations: number;
  expiredRemoved: number;
  /** Live-scored members whose invite object was gone. */
  orphansRemoved: number;
  /** Registry entries dropped because their email index was gone. */
  registryDropped: number;
}

/**
 * Which indexes: the organisations come from PostgreSQL (invite-organizations.ts), each one's active-by-org index by
 * its key, and its email indexes from the registry the create script keeps beside them (inviteEmailIndexesByOrg). No
 * SCAN, so a run costs what those indexes hold, whatever else the Redis holds. Each step is one script, bounded by
 * the commands left, charged what it ran; two runs at once only split the work (ZREM counts what it removed).
 */
export const inviteIndexCleanupTask: CronTask = {
  name: NAME,
  async run(deps, budget) {
    const report: InviteCleanupReport = {
      task: NAME,
      visited: 0,
      removed: 0,
      repaired: 0,
      commands: 0,
      done: false,
      organizations: 0,
      expiredRemoved: 0,
      orphansRemoved: 0,
      registryDropped: 0,
    };
    const spentBefore = budget.used();
    // The cursor is saved after a failure too: the work done so far is kept, and a repeat of it would change nothing.
    await resumeFromCursor(deps, budget, NAME, async (stored) => encodeCursor(await cleanFrom(deps, budget, decodeCursor(stored), report)));
    report.commands = budget.used() - spentBefore;
    return report;
  },
};

async function cleanFrom(deps: Deps, budget: CronBudget, start: Cursor, report: InviteCleanupReport): Promise<Cursor> {
  let cursor = start;
  const since = new Date(deps.clock.now() - (INVITE_TTL_SECONDS + DISCOVERY_MARGIN_SECONDS) * 1000);
  let page = cursor.current === undefined ? [] : [cursor.current.organizationId];
  let lastPage = false;
  for (;;) {
    const organizationId = page[0];
    if (organizationId === undefined) {
      if (lastPage) break;
      if (stopped(budget)) return cursor;
      budget.spend(1);
      page = await organizationsWithInvitesSince(deps, { since, after: cursor.after, limit: ORGANIZATIONS_PER_PAGE });
      lastPage = page.length < ORGANIZATIONS_PER_PAGE;
      continue;
    }
    const from = cursor.current ?? { organizationId, step: 'org-index', position: 0, indexOffset: 0 };
    const stoppedAt = await cleanOrganization(deps, budget, from, report);
    if (stoppedAt !== undefined) return { after: cursor.after, current: stoppedAt };
    cursor = { after: organizationId };
    report.organizations += 1;
    page = page.slice(1);
  }
  report.done = true;
  return { after: null };
}

/** Runs the organisation's steps from `from`; returns where the budget stopped it, or undefined when it finished. */
async function cleanOrganization(
  deps: Deps,
  budget: CronBudget,
  from: Position,
  report: InviteCleanupReport,
): Promise<Position | undefined> {
  const { organizationId } = from;
  let { step, position, indexOffset } = from;
  for (;;) {
    if (stopped(budget)) return { organizationId, step, position, indexOffset };
    const allowance = Math.min(MAX_STEP_COMMANDS, budget.commandsLeft() - CURSOR_WRITE - 1);
    const nowSeconds = Math.floor(deps.clock.now() / 1000);
    // The EVALSHA now; what the script ran once it answers (never more than its allowance, which the budget holds).
    budget.spend(1);
    if (step === 'org-index') {
      const result = await pruneOrgIndex(deps, { organizationId, offset: position, allowance, nowSeconds });
      budget.spend(result.commands);
      count(report, result);
      if (result.finished) [step, position, indexOffset] = ['email-indexes', 0, 0];
      else position = result.offset;
    } else {
      const result = await pruneEmailIndexes(deps, { organizationId, position, indexOffset, allowance, nowSeconds });
      budget.spend(result.commands);
      count(report, result);
      if (result.finished) return undefined;
      [position, indexOffset] = [result.position, result.indexOffset];
    }
  }
}

function stopped(budget: CronBudget): boolean {
  return budget.exhausted() || budget.commandsLeft() - CURSOR_WRITE - 1 < MIN_STEP_COMMANDS;
}

function count(report: InviteCleanupReport, result: PruneCounts): void {
  report.visited += result.expiredRemoved + result.checked;
  report.removed += result.expiredRemoved + result.orphansRemoved;
  report.repaired += result.raised;
  report.expiredRemoved += result.expiredRemoved;
  report.orphansRemoved += result.orphansRemoved;
  report.registryDropped += result.dropped;
}

function decodeCursor(raw: string | null): Cursor {
  if (raw === null) return { after: null };
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(raw));
    // A cursor this version cannot read starts a new pass: every step is safe to repeat.
    return parsed.success ? parsed.data : { after: null };
  } catch {
    return { after: null };
  }
}

function encodeCursor(cursor: Cursor): string | null {
  return cursor.after === null && cursor.current === undefined ? null : JSON.stringify(cursorSchema.parse(cursor));
}
