// When the scheduled function runs next: the deployment's trigger fires on every whole multiple of CRON_INTERVAL_SECONDS (UTC).
import type { Config } from '../../config/index.ts';

/**
 * The first multiple of the interval after `nowMs`: wrangler.toml's cron fires at :00, :05, … of every hour, and
 * sst.config.ts's and npm start's timer (local/launcher/cron.ts) likewise. What the configuration says, not what
 * happened: a run skipped or late is not seen here.
 */
export function nextScheduledRunAt(config: Pick<Config, 'cron'>, nowMs: number): Date {
  const intervalMs = config.cron.intervalSeconds * 1000;
  return new Date((Math.floor(nowMs / intervalMs) + 1) * intervalMs);
}
