// The scheduled function's run lock: one per task list, so two triggers do not run the same work at once.
import { defineKey } from '../define-key.ts';
import { word } from '../id-segments.ts';
import { lockOwner } from '../key-values.ts';
import { platformScope } from '../scopes.ts';

/** The run lock's upper bound: eight tasks at the largest time budget (60 s) fit with room. lib/cron/run-lock-ttl.ts sets
 * each run's TTL from its tasks' budgets, never above this. */
export const CRON_RUN_LOCK_MAX_SECONDS = 900;

export const cronKeys = {
  cronRunLock: defineKey({
    scope: platformScope,
    domain: 'cron',
    purpose: 'run-lock',
    // One lock for the one task list every trigger runs; a second schedule with its own list would add its name here.
    id: [word('all')],
    ttl: { maxSeconds: CRON_RUN_LOCK_MAX_SECONDS },
    value: lockOwner,
  }),
};
