// The password of the launcher's own redis-server: generated once per data folder, kept 0600 beside its AOF, reused.
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `<redisDir>/password`, created on first use; hex, so it needs no quoting in a URL or a Redis config. */
export function redisPassword(redisDir: string): string {
  const file = join(redisDir, 'password');
  try {
    // 'wx' fails when the file exists, so two launchers starting together agree on one password.
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    chmodSync(file, 0o600);
  }
  const password = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(password)) {
    throw new Error(`${file} does not hold a Redis password the launcher wrote; delete it to generate a new one`);
  }
  return password;
}
