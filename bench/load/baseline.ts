// `--baseline REF`: the source tree of a git ref beside this checkout, with its own node_modules, so its app can run
// the same load beside this one's in one run (bench/load/run-load.ts). The tree is `git archive` of the commit (no
// worktree is registered, nothing in this repository changes), kept in the system's temporary folder by commit, so a
// second run reuses it and its `npm ci`.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Written once `npm ci` finished, so a tree whose install was cut short is made again. */
const INSTALLED = '.bench-baseline-installed';

export interface BaselineTree {
  /** The full commit id the ref named when the run began. */
  commit: string;
  root: string;
}

export async function prepareBaseline(ref: string, repoRoot: string, progress: (line: string) => void): Promise<BaselineTree> {
  const { stdout } = await run('git', ['-C', repoRoot, 'rev-parse', '--verify', `${ref}^{commit}`]);
  const commit = stdout.trim();
  const root = join(tmpdir(), `runstate-bench-baseline-${commit}`);
  if (existsSync(join(root, INSTALLED))) return { commit, root };
  progress(`baseline ${ref} (${commit.slice(0, 12)}): extracting into ${root} and running npm ci …`);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await run('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', repoRoot, commit, root]);
  await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  await writeFile(join(root, INSTALLED), `${commit}\n`);
  return { commit, root };
}
