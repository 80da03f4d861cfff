// The scheduled function's runner on real Redis: one run at a time under the run lock, a fresh budget per task, one
// line per task, failures contained; and `npm run cron -- --once` as an operator runs it.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeps } from '../../lib/create-deps.ts';
import { runScheduled } from '../../lib/cron/run-scheduled.ts';
import { runLockTtlMs, TASK_OVERRUN_MS } from '../../lib/cron/run-lock-ttl.ts';
import { CRON_TASKS } from '../../lib/cron/tasks.ts';
import type { CronBudget } from '../../lib/runtime/cron-task/budget.ts';
import type { CronTask, TaskReport } from '../../lib/runtime/cron-task/task.ts';
import type { Clock, Deps } from '../../lib/deps.ts';
import { KEY_REGISTRY } from '../../lib/keys/index.ts';
import { createJsonLogger } from '../../lib/log/logger.ts';
import { startCronTimer } from '../../local/launcher/cron.ts';
import { startStack, type TestStack } from '../support/stack.ts';

// A prefix of its own: other files on this Redis may run the scheduled function too, and the lock is platform-wide.
const KEY_PREFIX = 'cronrun';
const REPO_ROOT = join(import.meta.dirname, '../..');
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let stack: TestStack;
let lockKey: string;

beforeAll(async () => {
  stack = await startStack({ env: { KEY_PREFIX } });
  lockKey = stack.deps.keys.cronRunLock();
});
afterAll(async () => {
  await stack?.close();
});
beforeEach(async () => {
  await stack.redis.del(lockKey);
});

type Line = Record<string, unknown> & { event: string; level: string };

/** Deps of one more "isolate" on the same stores, with its own log lines and, if given, its own clock. */
function isolate(clock?: Clock): { deps: Deps; lines: Line[] } {
  const lines: Line[] = [];
  const logger = createJsonLogger((line) => lines.push(JSON.parse(line) as Line));
  return { deps: createDeps(stack.config, { logger, ...(clock !== undefined ? { clock } : {}) }), lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function report(task: string, budget: CronBudget, counts: Partial<TaskReport> = {}): TaskReport {
  return { task, visited: 0, removed: 0, repaired: 0, commands: budget.used(), done: true, ...counts };
}

/** A task that sends one real Redis command (counted on its budget), then waits. */
function slowTask(name: string, ms: number, calls: { count: number }): CronTask {
  return {
    name,
    async run(deps, budget) {
      calls.count += 1;
      budget.spend(1);
      await deps.redis.retrySafe.get(deps.keys.cronRunLock());
      await sleep(ms);
      return report(name, budget, { visited: 3, removed: 2, repaired: 1 });
    },
  };
}

const linesOf = (lines: Line[], event: string) => lines.filter((line) => line.event === event);

describe('the run lock', () => {
  it('lets exactly one of two concurrent runs work; the other skips with one cron_skipped line', async () => {
    const calls = { count: 0 };
    const tasks = [slowTask('slow', 400, calls)];
    const a = isolate();
    const b = isolate();
    const runs = await Promise.all([runScheduled(a.deps, { trigger: 'timer', tasks }), runScheduled(b.deps, { trigger: 'cli', tasks })]);
    expect(runs.filter((run) => run.ran)).toHaveLength(1);
    const skipped = runs.find((run) => !run.ran);
    expect(skipped).toMatchObject({ ran: false, reason: 'locked', reports: [] });
    expect(calls.count).toBe(1);

    const lines = [...a.lines, ...b.lines];
    expect(linesOf(lines, 'cron_skipped')).toHaveLength(1);
    const skip = linesOf(lines, 'cron_skipped')[0]!;
    expect(skip.correlationId).toBe(skipped?.correlationId);
    expect(skip.lockMsLeft).toBeGreaterThan(0);
    expect(skip.lockMsLeft).toBeLessThanOrEqual(runLockTtlMs(1, stack.config.cron.taskTimeBudgetMs));
    expect(linesOf(lines, 'cron_task')).toHaveLength(1);
    expect(linesOf(lines, 'cron_run')).toHaveLength(1);
  });

  it('holds the lock with the TTL of the run’s budgets while it runs, and releases it after', async () => {
    const ttlMs = runLockTtlMs(2, stack.config.cron.taskTimeBudgetMs);
    let seen: { owner: string | null; pttl: number } | undefined;
    const probe: CronTask = {
      name: 'probe',
      async run(_deps, budget) {
        seen = { owner: await stack.redis.get(lockKey), pttl: await stack.redis.pttl(lockKey) };
        return report('probe', budget);
      },
    };
    const { deps } = isolate();
    const first = await runScheduled(deps, { trigger: 'timer', tasks: [probe, probe] });
    expect(first.ran).toBe(true);
    // The owner is 128 random bits, nothing else.
    expect(seen?.owner).toMatch(/^[0-9a-f]{32}$/);
    expect(seen?.pttl).toBeGreaterThan(ttlMs - 2_000);
    expect(seen?.pttl).toBeLessThanOrEqual(ttlMs);
    expect(await stack.redis.exists(lockKey)).toBe(0);

    const second = await runScheduled(deps, { trigger: 'timer', tasks: [probe] });
    expect(second.ran).toBe(true);
    expect(second.correlationId).not.toBe(first.correlationId);
    expect(await stack.redis.exists(lockKey)).toBe(0);
  });

  it('keeps a dead holder’s lock until it expires, then runs', async () => {
    const calls = { count: 0 };
    const tasks = [slowTask('after-crash', 0, calls)];
    const ttlMs = runLockTtlMs(tasks.length, stack.config.cron.taskTimeBudgetMs);
    // A run that took the lock and died: its owner never comes back to release it.
    const deadOwner = 'dead'.repeat(8);
    await stack.redis.set(lockKey, deadOwner, 'PX', ttlMs);
    const registryRow = KEY_REGISTRY.find((entry) => entry.name === 'cronRunLock')!;
    expect(await stack.redis.pttl(lockKey)).toBeLessThanOrEqual(registryRow.ttl.maxSeconds! * 1000);

    const { deps, lines } = isolate();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await runScheduled(deps, { trigger: 'timer', tasks })).toMatchObject({ ran: false, reason: 'locked' });
    }
    expect(calls.count).toBe(0);
    expect(linesOf(lines, 'cron_skipped')).toHaveLength(3);
    // Nobody but its owner deletes it; it only ever expires.
    expect(await stack.redis.get(lockKey)).toBe(deadOwner);
    expect(await stack.redis.pttl(lockKey)).toBeGreaterThan(0);

    // Its TTL running out, without waiting the whole of it.
    await stack.redis.pexpire(lockKey, 100);
    await sleep(150);
    expect(await runScheduled(deps, { trigger: 'timer', tasks })).toMatchObject({ ran: true });
    expect(calls.count).toBe(1);
  });

  it('gives a held lock found without a TTL one run’s TTL, so it cannot block every run forever', async () => {
    await stack.redis.set(lockKey, 'e'.repeat(32));
    const ttlMs = runLockTtlMs(1, stack.config.cron.taskTimeBudgetMs);
    const { deps, lines } = isolate();
    expect(await runScheduled(deps, { trigger: 'timer', tasks: [slowTask('blocked', 0, { count: 0 })] })).toMatchObject({ ran: false });
    const pttl = await stack.redis.pttl(lockKey);
    expect(pttl).toBeGreaterThan(ttlMs - 2_000);
    expect(pttl).toBeLessThanOrEqual(Math.ceil(ttlMs / 1000) * 1000);
    expect(linesOf(lines, 'cron_skipped')[0]?.lockMsLeft).toBeGreaterThan(0);
  });

  it('does not run when Redis cannot answer the lock, and says so once', async () => {
    const calls = { count: 0 };
    const { deps, lines } = isolate();
    stack.redisProxy.faults.set({ refuse: true });
    try {
      expect(await runScheduled(deps, { trigger: 'timer', tasks: [slowTask('never', 0, calls)] })).toMatchObject({
        ran: false,
        reason: 'lock-unavailable',
      });
    } finally {
      stack.redisProxy.faults.clear();
    }
    expect(calls.count).toBe(0);
    expect(lines.map((line) => line.event)).toEqual(['cron_run_failed']);
    expect(lines[0]).toMatchObject({ level: 'error', errorKind: 'RedisUnavailableError', trigger: 'timer' });
  });
});

describe('the tasks of one run', () => {
  it('go on after a task that throws, logging its kind and never its message', async () => {
    const canary = `client-said-${crypto.randomUUID()}`;
    const calls = { count: 0 };
    const boom: CronTask = {
      name: 'boom',
      async run(_deps, budget) {
        budget.spend(2);
        throw new TypeError(canary);
      },
    };
    const { deps, lines } = isolate();
    const run = await runScheduled(deps, { trigger: 'cli', tasks: [boom, slowTask('next', 0, calls)] });
    expect(run).toMatchObject({ ran: true, failed: ['boom'], notStarted: [] });
    expect(run.reports.map((r) => r.task)).toEqual(['next']);
    expect(calls.count).toBe(1);

    const failed = linesOf(lines, 'cron_task_failed');
    expect(failed).toEqual([
      expect.objectContaining({
        level: 'error',
        task: 'boom',
        errorKind: 'TypeError',
        commands: 2,
        trigger: 'cli',
        correlationId: run.correlationId,
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(canary);
    expect(linesOf(lines, 'cron_run')).toEqual([expect.objectContaining({ level: 'warn', tasks: 1, failed: 1, notStarted: 0 })]);
    expect(await stack.redis.exists(lockKey)).toBe(0);
  });

  it('give each task a fresh budget, and log one cron_task line per task with its counts', async () => {
    let now = Date.now();
    const clock: Clock = { now: () => now };
    const { taskCommandBudget, taskTimeBudgetMs } = stack.config.cron;
    const seenAtStart: Array<{ commandsLeft: number; msLeft: number }> = [];
    const greedy = (name: string): CronTask => ({
      name,
      async run(_deps, budget) {
        seenAtStart.push({ commandsLeft: budget.commandsLeft(), msLeft: budget.msLeft() });
        // Spends everything it has, commands and time.
        budget.spend(budget.commandsLeft());
        now += taskTimeBudgetMs;
        expect(budget.exhausted()).toBe(true);
        return report(name, budget, { visited: 10, removed: 4, repaired: 1, done: false });
      },
    });
    const { deps, lines } = isolate(clock);
    const run = await runScheduled(deps, { trigger: 'lambda', tasks: [greedy('first'), greedy('second')] });
    expect(run.ran).toBe(true);
    expect(seenAtStart).toEqual([
      { commandsLeft: taskCommandBudget, msLeft: taskTimeBudgetMs },
      { commandsLeft: taskCommandBudget, msLeft: taskTimeBudgetMs },
    ]);

    const taskLines = linesOf(lines, 'cron_task');
    expect(taskLines).toHaveLength(2);
    for (const [index, line] of taskLines.entries()) {
      expect(Object.keys(line).sort()).toEqual(
        ['ts', 'level', 'event', 'task', 'visited', 'removed', 'repaired', 'commands', 'ms', 'done', 'trigger', 'correlationId'].sort(),
      );
      expect(line).toMatchObject({
        level: 'info',
        task: index === 0 ? 'first' : 'second',
        visited: 10,
        removed: 4,
        repaired: 1,
        commands: taskCommandBudget,
        ms: taskTimeBudgetMs,
        done: false,
        trigger: 'lambda',
        correlationId: run.correlationId,
      });
    }
    expect(run.correlationId).toMatch(UUID_V7);
    expect(linesOf(lines, 'cron_run')).toEqual([
      expect.objectContaining({
        level: 'info',
        tasks: 2,
        failed: 0,
        notStarted: 0,
        ms: 2 * taskTimeBudgetMs,
        correlationId: run.correlationId,
      }),
    ]);
  });

  it('start no task the lock could no longer cover: it is left for the next run', async () => {
    let now = Date.now();
    const clock: Clock = { now: () => now };
    const { taskTimeBudgetMs } = stack.config.cron;
    const overran: CronTask = {
      name: 'overran',
      async run(_deps, budget) {
        // Far past its budget and overrun (a hung call the deadlines missed): the lock may be gone by now.
        now += 2 * (taskTimeBudgetMs + TASK_OVERRUN_MS);
        return report('overran', budget);
      },
    };
    const calls = { count: 0 };
    const { deps, lines } = isolate(clock);
    const run = await runScheduled(deps, { trigger: 'workers', tasks: [overran, slowTask('later', 0, calls)] });
    expect(run).toMatchObject({ ran: true, failed: [], notStarted: ['later'] });
    expect(calls.count).toBe(0);
    expect(linesOf(lines, 'cron_run')).toEqual([expect.objectContaining({ level: 'warn', tasks: 1, notStarted: 1 })]);
  });
});

describe('the npm start timer', () => {
  it('runs the scheduled function every interval, one line per run in words, each record in cron.log, and none after stop()', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cron-timer-'));
    const printed: string[] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void printed.push(String(line)));
    const summaries = () => printed.filter((line) => line.startsWith('scheduled run '));
    const logged = async () =>
      (await readFile(join(dataDir, 'cron.log'), 'utf8').catch(() => ''))
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Line);
    try {
      const timer = startCronTimer(stack.config, { RUNSTATE_CRON_INTERVAL_SECONDS: '1', RUNSTATE_DATA_DIR: dataDir });
      expect(timer?.description).toContain('every 1 s');
      expect(timer?.description).toContain(join(dataDir, 'cron.log'));
      await expect.poll(() => summaries().length, { timeout: 5_000, interval: 100 }).toBeGreaterThanOrEqual(2);
      await timer?.stop();
      const count = summaries().length;
      await sleep(1_300);
      expect(summaries()).toHaveLength(count);
      for (const line of summaries()) {
        expect(line).toMatch(new RegExp(`^scheduled run \\d\\d:\\d\\d:\\d\\d: ${CRON_TASKS.length} tasks, 0 failed, \\d+ ms$`));
      }
      // No info line reached the terminal (a task's warn, such as a denylist not yet whole, may).
      const jsonPrinted = printed.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Line);
      expect(jsonPrinted.filter((line) => line.level === 'info')).toEqual([]);
      const lines = await logged();
      const runs = linesOf(lines, 'cron_run');
      expect(runs).toHaveLength(count);
      for (const run of runs) expect(run).toMatchObject({ level: 'info', trigger: 'timer', failed: 0 });
      expect(linesOf(lines, 'cron_task')).toHaveLength(count * CRON_TASKS.length);
      expect((await stat(join(dataDir, 'cron.log'))).mode & 0o777).toBe(0o600);
      expect(await stack.redis.exists(lockKey)).toBe(0);
    } finally {
      spy.mockRestore();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is off at 0, and refuses a value that is not whole seconds', () => {
    expect(startCronTimer(stack.config, { RUNSTATE_CRON_INTERVAL_SECONDS: '0' })).toBeUndefined();
    for (const bad of ['1.5', '-1', 'soon', '86401']) {
      expect(() => startCronTimer(stack.config, { RUNSTATE_CRON_INTERVAL_SECONDS: bad })).toThrow(/^RUNSTATE_CRON_INTERVAL_SECONDS: /);
    }
  });
});

describe('npm run cron', () => {
  function cron(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('npm', ['run', '-s', 'cron', '--', ...args], {
        cwd: REPO_ROOT,
        // Only what npm needs and the app's own variables: nothing of this process's environment leaks in.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  }
  const secretsOf = () => {
    const env: Record<string, string | undefined> = stack.env;
    return ['UPSTASH_REDIS_REST_TOKEN', 'AUTH_JWT_SECRET', 'INDEX_HASH_KEY', 'SECRETS_KEYS'].map((name) => env[name]!);
  };

  it('runs once against the environment’s stores, prints one line per task and the run’s, and exits 0', async () => {
    const result = await cron(['--once'], { ...stack.env, KEY_PREFIX });
    expect(result.stderr).toMatch(/cron: \d+ tasks ran, 0 failed/);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Line);
    expect(linesOf(lines, 'cron_task').map((line) => line.task)).toEqual(CRON_TASKS.map((task) => task.name));
    for (const line of linesOf(lines, 'cron_task')) expect(line).toMatchObject({ trigger: 'cli', done: expect.any(Boolean) });
    expect(linesOf(lines, 'cron_run')).toEqual([expect.objectContaining({ trigger: 'cli', tasks: CRON_TASKS.length, failed: 0 })]);
    for (const secret of secretsOf()) expect(result.stdout + result.stderr).not.toContain(secret);
    expect(await stack.redis.exists(lockKey)).toBe(0);
  });

  it('exits 2 without running while another run holds the lock', async () => {
    await stack.redis.set(lockKey, 'a'.repeat(32), 'PX', 30_000);
    const result = await cron(['--once'], { ...stack.env, KEY_PREFIX });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('another run holds the lock');
    expect(
      result.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as Line).event),
    ).toEqual(['cron_skipped']);
  });

  it('refuses to run without --once, and a bad setting by its name only (exit 1)', async () => {
    const plain = await cron([], { ...stack.env, KEY_PREFIX });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('runs only with --once');
    expect(plain.stdout).toBe('');

    const canary = `short-${crypto.randomUUID().slice(0, 8)}`;
    const bad = await cron(['--once'], { ...stack.env, KEY_PREFIX, AUTH_JWT_SECRET: canary });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('AUTH_JWT_SECRET');
    for (const secret of [canary, ...secretsOf()]) expect(bad.stdout + bad.stderr).not.toContain(secret);
  });
});
