// Where a scheduled task stopped, kept in PostgreSQL (`cron_cursors`), so the next run resumes there on any instance.
import { dbCall } from '../../pg/unavailable.ts';
import type { Deps } from '../../deps.ts';
import type { CronBudget } from './budget.ts';

export async function readCursor(deps: Deps, task: string): Promise<string | null> {
  const rows = await dbCall('read', 'cron.cursor.read', (signal) =>
    deps.db.query<{ cursor: string | null }>('SELECT cursor FROM cron_cursors WHERE task = $1', [task], { signal }),
  );
  return rows[0]?.cursor ?? null;
}

/** `null` means the task finished its list: the next run starts from the beginning. */
export async function writeCursor(deps: Deps, task: string, cursor: string | null): Promise<void> {
  await dbCall('commit', 'cron.cursor.write', (signal) =>
    deps.db.query(
      'INSERT INTO cron_cursors (task, cursor, updated_at) VALUES ($1, $2, now()) ON CONFLICT (task) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = now()',
      [task, cursor],
      { signal },
    ),
  );
}

/**
 * Reads the task's cursor, runs `work` from it and saves the cursor `work` returns, charging the budget one command
 * for the read and one for the write. When `work` throws, the cursor it started from is written back (a repeat of
 * the work done so far changes nothing) and the error is rethrown.
 */
export async function resumeFromCursor(
  deps: Deps,
  budget: CronBudget,
  task: string,
  work: (stored: string | null) => Promise<string | null>,
): Promise<void> {
  budget.spend(1);
  const stored = await readCursor(deps, task);
  let next = stored;
  let failure: unknown;
  try {
    next = await work(stored);
  } catch (error) {
    failure = error;
  }
  try {
    budget.spend(1);
    await writeCursor(deps, task, next);
  } catch (error) {
    failure ??= error;
  }
  if (failure !== undefined) throw failure;
}
