// When a queued export should start and when a running one counts as stalled, from the schedule the deployment says it runs.
import { describe, expect, it } from 'vitest';
import { nextScheduledRunAt } from '../../lib/runtime/cron-task/next-run.ts';
import { stallSeconds } from '../../lib/runtime/jobs/policy.ts';

const schedule = (intervalSeconds: number) => ({ cron: { taskCommandBudget: 1_000, taskTimeBudgetMs: 5_000, intervalSeconds } });

describe('the next scheduled run', () => {
  it('is the next whole 5 minutes of the clock (UTC), never now itself', () => {
    expect(nextScheduledRunAt(schedule(300), Date.parse('2026-12-07T14:01:30.000Z')).toISOString()).toBe('2026-12-07T14:05:00.000Z');
    expect(nextScheduledRunAt(schedule(300), Date.parse('2026-12-07T14:04:59.999Z')).toISOString()).toBe('2026-12-07T14:05:00.000Z');
    // A run due at this very instant has started: the next one is the one to wait for.
    expect(nextScheduledRunAt(schedule(300), Date.parse('2026-12-07T14:05:00.000Z')).toISOString()).toBe('2026-12-07T14:10:00.000Z');
  });

  it("follows npm start's minute and an hourly schedule alike", () => {
    expect(nextScheduledRunAt(schedule(60), Date.parse('2026-12-07T14:01:30.000Z')).toISOString()).toBe('2026-12-07T14:02:00.000Z');
    expect(nextScheduledRunAt(schedule(3_600), Date.parse('2026-12-07T14:01:30.000Z')).toISOString()).toBe('2026-12-07T15:00:00.000Z');
  });
});

describe('the stall threshold', () => {
  it('is twice the cache TTL on a one-minute schedule, as before', () => {
    expect(stallSeconds({ jobCacheTtlSeconds: 120, ...schedule(60) })).toBe(240);
  });

  it('outlasts the interval between two runs of a five-minute schedule, so a job handed back between them is not stalled', () => {
    const threshold = stallSeconds({ jobCacheTtlSeconds: 120, ...schedule(300) });
    expect(threshold).toBe(420);
    // The next run comes at most one interval after the hand-back, and its export task a few budgets into it.
    expect(threshold).toBeGreaterThan(300 + 60);
  });
});
