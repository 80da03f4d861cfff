// Placeholder hook for the cleanup cron under `npm start`: the cron function lands in a later issue and schedules itself here.
import type { Config } from '../../lib/config/index.ts';

export interface CronHandle {
  /** One line for the ready banner. */
  description: string;
  stop(): Promise<void>;
}

/**
 * Returns undefined until the cleanup function exists. When it does, this starts its timer
 * (each run bounded in commands and time, one structured log line of what it removed) and returns the handle the launcher stops.
 */
export function startCleanupCron(_config: Config): CronHandle | undefined {
  return undefined;
}
