// npm start's scheduled-run output: one line in words per run, the JSON records in a file, warn and error lines shown.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCronLog, cronLogFile } from '../../local/launcher/cron-log.ts';
import type { ScheduledRun } from '../../lib/cron/run-scheduled.ts';
import { describeRun } from '../../local/launcher/cron-summary.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cron-log-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the cron log', () => {
  it('keeps every line in the file (0600), one append per flush, and prints only warn and error lines', async () => {
    const printed: string[] = [];
    const file = cronLogFile(dir);
    const log = createCronLog(file, (line) => printed.push(line));
    log.logger.info('cron_task', { task: 'a' });
    log.logger.warn('cron_run', { failed: 1 });
    log.logger.error('cron_task_failed', { task: 'b', errorKind: 'TypeError' });
    expect(printed.map((line) => (JSON.parse(line) as { event: string }).event)).toEqual(['cron_run', 'cron_task_failed']);
    await log.flush();
    log.logger.info('cron_run', { failed: 0 });
    await log.flush();
    await log.flush();
    const events = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(events).toEqual(['cron_task', 'cron_run', 'cron_task_failed', 'cron_run']);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('makes a cron.log left readable by others 0600 again, keeping its lines', async () => {
    const file = cronLogFile(dir);
    await writeFile(file, '{"event":"earlier"}\n');
    await chmod(file, 0o644);
    const log = createCronLog(file, () => undefined);
    log.logger.info('cron_run', { failed: 0 });
    await log.flush();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readFile(file, 'utf8')).split('\n')).toHaveLength(3);
  });
});

describe('the line per run', () => {
  const at = new Date(2026, 11, 7, 14, 5, 9);
  const report = (task: string) => ({ task, visited: 0, removed: 0, repaired: 0, commands: 1, done: true });

  it('says in words how many tasks ran, failed or wait for the next run', () => {
    const ok: ScheduledRun = { ran: true, correlationId: 'c', reports: [report('a'), report('b')], failed: [], notStarted: [] };
    expect(describeRun(ok, at, 132)).toBe('scheduled run 14:05:09: 2 tasks, 0 failed, 132 ms');
    const bad: ScheduledRun = { ...ok, failed: ['webhook-delivery'], notStarted: ['retention'] };
    expect(describeRun(bad, at, 40)).toBe(
      'scheduled run 14:05:09: 3 tasks, 1 failed (webhook-delivery), 1 not started (retention; next run), 40 ms',
    );
  });

  it('says why nothing ran', () => {
    expect(describeRun({ ran: false, correlationId: 'c', reason: 'locked', reports: [] }, at, 3)).toContain('another run holds the lock');
    expect(describeRun({ ran: false, correlationId: 'c', reason: 'lock-unavailable', reports: [] }, at, 3)).toContain(
      'Redis did not answer',
    );
  });
});
