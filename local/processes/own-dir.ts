// A folder of ours in a place others can write to (the system temp folder): created by us, or checked and refused.
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';

/**
 * Creates `dir` with `mode`, or accepts one that is already there only if it is a real folder (not a link) owned by
 * us that nobody else can write to: anyone may create a folder in /tmp, and what is inside ours is run or trusted.
 */
export function ensureOwnDir(dir: string, mode: number): void {
  try {
    // mkdir does not follow a symbolic link planted at `dir`: it fails with EEXIST, and the check below refuses it.
    mkdirSync(dir, { mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const problem = whyNotOwn(dir);
  if (problem !== undefined) {
    throw new Error(
      `${dir} ${problem}, so it cannot be trusted: someone else may have made it. ` +
        `Look at it, remove it (\`rm -rf ${dir}\`) and start again, or set TMPDIR to another folder.`,
    );
  }
  // Ours and out of others' reach, so nobody can swap it between the check and this (the umask may have narrowed it).
  chmodSync(dir, mode);
}

/** undefined when `dir` is a real folder owned by us that only we can write to; else what is wrong with it. */
export function whyNotOwn(dir: string): string | undefined {
  const info = lstatSync(dir);
  if (info.isSymbolicLink()) return 'is a symbolic link';
  if (!info.isDirectory()) return 'is not a folder';
  if (info.uid !== process.getuid?.()) return `belongs to uid ${info.uid}, not to us`;
  if ((info.mode & 0o022) !== 0) return `is writable by others (mode ${(info.mode & 0o777).toString(8)})`;
  return undefined;
}
