// The scheduled function under `npm start`: a timer that runs it every RUNSTATE_CRON_INTERVAL_SECONDS, one run at a time.
import * as z from 'zod';
import type { Config } from '../../lib/config/index.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { runScheduled } from '../../lib/cron/run-scheduled.ts';
import { errorKind } from '../../lib/log/logger.ts';
import { createCronLog, cronLogFile } from './cron-log.ts';
import { describeRun } from './cron-summary.ts';
import { displayPath, ensureDataDir, resolveDataDir } from './data-dir.ts';

export interface CronHandle {
  /** One line for the ready banner. */
  description: string;
  /** Starts no further run and waits for the one in hand (its task finishes within its budget; no later task starts). */
  stop(): Promise<void>;
}

const DEFAULT_INTERVAL_SECONDS = 60;

// A launcher setting, not the app's: deployments schedule the function themselves (wrangler.toml, sst.config.ts).
const intervalSchema = z.coerce.number().int().min(0).max(86_400).default(DEFAULT_INTERVAL_SECONDS);

/** The timer's period in seconds (0: off), which the launcher also hands the app as CRON_INTERVAL_SECONDS. */
export function cronTimerSeconds(env: Record<string, string | undefined>): number {
  const raw = env.RUNSTATE_CRON_INTERVAL_SECONDS;
  const parsed = intervalSchema.safeParse(raw === '' ? undefined : raw);
  if (!parsed.success) throw new Error('RUNSTATE_CRON_INTERVAL_SECONDS: whole seconds, 0 to 86400 (0 turns the timer off)');
  return parsed.data;
}

/**
 * Undefined when RUNSTATE_CRON_INTERVAL_SECONDS is 0. The next run is armed only when the last one ended, so two
 * never overlap in this process; the run lock keeps it apart from any other process on the same Redis. Runs start on
 * whole multiples of the period, as a deployment's cron does, so the app's CRON_INTERVAL_SECONDS says when the next is.
 */
export function startCronTimer(config: Config, env: Record<string, string | undefined>): CronHandle | undefined {
  const seconds = cronTimerSeconds(env);
  if (seconds === 0) return undefined;

  // Its own Deps, as a separate invocation gets on Workers or Lambda. Its JSON lines (some nine a run) would scroll the
  // walkthrough away: they go to <data>/cron.log, and the terminal gets one line per run plus any warn or error line.
  const logFile = cronLogFile(ensureDataDir(resolveDataDir(env)));
  const log = createCronLog(logFile, (line) => console.log(line));
  const deps = createDeps(config, { logger: log.logger });
  const stopping = new AbortController();
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const arm = (): void => {
    const periodMs = seconds * 1000;
    if (!stopping.signal.aborted) timer = setTimeout(tick, periodMs - (Date.now() % periodMs));
  };
  const tick = (): void => {
    const startedAt = new Date(deps.clock.now());
    running = runScheduled(deps, { trigger: 'timer', signal: stopping.signal })
      .then((run) => console.log(describeRun(run, startedAt, deps.clock.now() - startedAt.getTime())))
      // runScheduled logs what failed and returns; only a bug lands here, and it must not stop the timer or the launcher.
      .catch((error: unknown) => deps.logger.error('cron_timer_failed', { errorKind: errorKind(error) }))
      // A full disk or a removed folder loses the records, never the timer.
      .then(() => log.flush())
      .catch((error: unknown) =>
        console.log(
          `scheduled run: could not write ${displayPath(logFile)} (${(error as NodeJS.ErrnoException).code ?? errorKind(error)})`,
        ),
      )
      .finally(() => {
        running = undefined;
        arm();
      });
  };
  arm();

  return {
    description:
      `the scheduled function every ${seconds} s, one run at a time (RUNSTATE_CRON_INTERVAL_SECONDS; 0 turns it off); ` +
      `one "scheduled run" line each here, every task's JSON record in ${displayPath(logFile)}`,
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
