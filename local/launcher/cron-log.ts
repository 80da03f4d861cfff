// Where npm start's scheduled runs log: every JSON line to <data>/cron.log, and to the terminal only the lines that say
// something is wrong (warn, error); the terminal's summary of each run is local/launcher/cron-summary.ts's.
import { open, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createJsonLogger, type Logger } from '../../lib/log/logger.ts';

/** Past this size the file moves to cron.log.1 (replacing the one before), so a stack left running for weeks stays small. */
const ROTATE_AT_BYTES = 5 * 1024 * 1024;

export function cronLogFile(dataDir: string): string {
  return join(dataDir, 'cron.log');
}

export interface CronLog {
  logger: Logger;
  /** Appends the lines logged since the last flush; one write per run. */
  flush(): Promise<void>;
}

export function createCronLog(file: string, print: (line: string) => void): CronLog {
  let pending: string[] = [];
  const logger = createJsonLogger((line) => {
    pending.push(line);
    // The level is the line's own second field; parsing it back is cheap and keeps the logger's format in one place.
    const { level } = JSON.parse(line) as { level: string };
    if (level !== 'info') print(line);
  });
  return {
    logger,
    async flush() {
      if (pending.length === 0) return;
      const lines = pending;
      pending = [];
      await rotateIfLarge(file);
      // The lines hold ids, counts and error kinds only (lib/log/logger.ts); 0600 all the same, like the folder's other files.
      // The mode of open() applies only to a new file, so one left readable by others is made 0600 before it grows.
      const handle = await open(file, 'a', 0o600);
      try {
        await handle.chmod(0o600);
        await handle.appendFile(`${lines.join('\n')}\n`);
      } finally {
        await handle.close();
      }
    },
  };
}

async function rotateIfLarge(file: string): Promise<void> {
  const size = await stat(file).then(
    (found) => found.size,
    () => 0,
  );
  if (size >= ROTATE_AT_BYTES) await rename(file, `${file}.1`);
}
