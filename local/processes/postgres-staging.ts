// As root, PostgreSQL runs as `postgres`; when that user cannot reach the checkout's binaries or data folder, both move to the temp folder.
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync } from 'node:fs';
import { chmod, cp, lstat, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureOwnDir, whyNotOwn } from './own-dir.ts';
import { movedTo, type PostgresBinaries } from './postgres-binaries.ts';
import { assertReachable, closedDirOnTheWay, POSTGRES_OS_USER, type RunAs } from './postgres-os-user.ts';

export interface PostgresPlace {
  binaries: PostgresBinaries;
  dataDir: string;
  /** Set when something is staged: the one line to print, and what the banner adds to the data folder's path. */
  staging?: { root: string; line: string; dataNote?: string };
}

/** Where PostgreSQL runs from: the checkout itself when the server user reaches it, else a staging folder under tmpdir(). */
export async function placePostgres(binaries: PostgresBinaries, dataDir: string, runAs: RunAs | undefined): Promise<PostgresPlace> {
  const here: PostgresPlace = { binaries, dataDir };
  if (runAs === undefined) return here;
  const root = stagingRootFor(binaries.home, dataDir);
  const closedToBinaries = closedDirOnTheWay(binaries.postgres, runAs);
  const closedToData = closedDirOnTheWay(dataDir, runAs);
  // A cluster already in a closed folder is not copied behind the user's back: today's error says how to open the way.
  if (closedToData !== undefined && hasCluster(dataDir)) assertReachable(dataDir, runAs, 'data folder');
  // Once the data was staged it stays there, even if the checkout opens up later: a new empty cluster would hide it.
  const stagedBefore = closedToData === undefined && !hasCluster(dataDir) && hasCluster(join(root, 'data')) && isOwn(root);
  const closed = closedToBinaries ?? closedToData;
  if (closed === undefined && !stagedBefore) return here;

  ensureOwnDir(root, 0o711);
  assertReachable(join(root, 'data'), runAs, 'staging folder', 'or set TMPDIR to a folder it can reach');
  const done: string[] = [];
  let place = here;
  if (closedToBinaries !== undefined) {
    const staged = await stageBinaries(binaries, root);
    done.push(staged.copied ? 'binaries copied' : 'binaries reused');
    place = { ...place, binaries: movedTo(binaries, staged.home) };
  }
  const reason = closed !== undefined ? `${closed} is closed to the \`${POSTGRES_OS_USER}\` user` : 'an earlier start put its data there';
  let dataNote: string | undefined;
  if (closedToData !== undefined || stagedBefore) {
    const staged = stageDataDir(join(root, 'data'), runAs);
    done.push(staged.fresh ? 'new data folder' : 'data folder reused');
    place = { ...place, dataDir: staged.dir };
    dataNote = `staged because ${reason}; the temp folder may be emptied on reboot`;
  }
  const line = `staging PostgreSQL in ${root}/ (${done.join(', ')}) because ${reason}`;
  return { ...place, staging: { root, line, ...(dataNote !== undefined ? { dataNote } : {}) } };
}

/** One folder per checkout and data folder: a short hash of both paths, under the system temp folder. */
export function stagingRootFor(binariesHome: string, dataDir: string): string {
  const key = createHash('sha256')
    .update(`${resolve(binariesHome)}\n${resolve(dataDir)}`)
    .digest('hex')
    .slice(0, 12);
  return join(tmpdir(), `runstate-pg-${key}`);
}

/** A copy of the package's bin/, lib/ and share/, kept per version; made under a temporary name, so only a whole copy is used. */
async function stageBinaries(binaries: PostgresBinaries, root: string): Promise<{ home: string; copied: boolean }> {
  const home = join(root, `postgres-${binaries.version}`);
  if (isOwn(home)) return { home, copied: false };
  // Left-overs of an interrupted copy or of another version; only we can write in `root`, so nothing here is anyone else's.
  for (const entry of await readdir(root)) {
    if (entry !== 'data') await rm(join(root, entry), { recursive: true, force: true });
  }
  const partial = join(root, `.partial-${randomBytes(6).toString('hex')}`);
  await cp(binaries.home, partial, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
  await readableNotWritable(partial);
  await rename(partial, home);
  return { home, copied: true };
}

/** Folders 0755, files without write (or set-id) bits for anyone but us: the server user runs them but cannot change them. */
async function readableNotWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await readableNotWritable(path);
    else if (entry.isFile()) await chmod(path, (await lstat(path)).mode & 0o755);
  }
}

/** The cluster's folder, 0700 and owned by the server user, as PostgreSQL demands; `fresh` until initdb has filled it. */
function stageDataDir(dir: string, runAs: RunAs): { dir: string; fresh: boolean } {
  if (!existsSync(dir)) {
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, runAs.uid, runAs.gid);
    chmodSync(dir, 0o700);
  }
  const info = lstatSync(dir);
  if (!info.isDirectory() || info.uid !== runAs.uid || (info.mode & 0o077) !== 0) {
    throw new Error(`${dir} is not a folder of the \`${POSTGRES_OS_USER}\` user with mode 0700: look at it, remove it and start again`);
  }
  return { dir, fresh: !hasCluster(dir) };
}

function hasCluster(dataDir: string): boolean {
  return existsSync(join(dataDir, 'PG_VERSION'));
}

function isOwn(dir: string): boolean {
  try {
    return whyNotOwn(dir) === undefined;
  } catch {
    return false;
  }
}
