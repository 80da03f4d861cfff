// Runs `npm start` (the launcher) as a child process for tests: follow what it prints, wait for the banner, stop it.
import { spawn, type ChildProcess } from 'node:child_process';
import { READY_PREFIX, STOP_PREFIX } from '../../local/launcher/banner.ts';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';

export interface Launched {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** Only what the launcher needs: nothing of this test process's configuration leaks in. */
export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

/**
 * Starts the launcher of the checkout at `root` (default: this one) and records it in `running` for clean-up. With
 * `viaNpm`, as a person types it: `npm start`, in a process group of its own, as a terminal's foreground job is (so
 * `interrupt` can send Ctrl-C's SIGINT to the whole group, npm and its shell included).
 */
export function launch(env: NodeJS.ProcessEnv, running: Launched[], root = REPO_ROOT, { viaNpm = false } = {}): Launched {
  // As package.json's start script, one node process with tsx's loader (no tsx CLI parent, which SIGKILLs a child slow
  // to acknowledge a signal): the hook gives the console's script as text (local/raw-text/). Not `npx`: npm exec does not
  // pass SIGTERM on, and the test needs the launcher's own exit code.
  const [command, args]: [string, string[]] = viaNpm
    ? ['npm', ['start']]
    : [process.execPath, ['--import', 'tsx', '--import', './local/raw-text/register.mjs', 'local/launcher/start.ts']];
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: viaNpm });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const launched = { child, output: () => output, exit };
  running.push(launched);
  return launched;
}

/** Resolves with the whole banner once its last line is out; fails with the output if the launcher dies first. */
export async function whenReady(launched: Launched, timeoutMs = 45_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = launched.output();
    if (text.includes(READY_PREFIX) && text.includes(`\n${STOP_PREFIX}`)) return text;
    if (launched.child.exitCode !== null) throw new Error(`launcher exited ${launched.child.exitCode}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`launcher not ready within ${timeoutMs} ms:\n${launched.output()}`);
}

/** The folder under the temp folder where the launcher staged PostgreSQL (as root, in a folder closed to `postgres`), if it did. */
export function stagingRoot(output: string): string | undefined {
  return /^staging PostgreSQL in (\/\S+)\/ /m.exec(output)?.[1];
}

/** The value of a printed `NAME=value` shell line. */
export function printed(banner: string, name: string): string {
  const match = new RegExp(`^${name}=(\\S+)$`, 'm').exec(banner);
  if (match === null) throw new Error(`the banner has no ${name}= line:\n${banner}`);
  return match[1] as string;
}

export async function stop(launched: Launched): Promise<number | null> {
  launched.child.kill('SIGTERM');
  return launched.exit;
}

/** Ctrl-C in the terminal: SIGINT to every process of the group `launch(…, { viaNpm: true })` made; its exit code. */
export async function interrupt(launched: Launched): Promise<number | null> {
  process.kill(-launched.child.pid!, 'SIGINT');
  return launched.exit;
}

/** SIGTERM to every launcher still running, then wait for each to exit. */
export async function stopAll(running: Launched[]): Promise<void> {
  for (const launched of running.splice(0)) {
    if (launched.child.exitCode === null) launched.child.kill('SIGTERM');
    await launched.exit;
  }
}

export async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

export async function portIsClosed(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => false,
    () => true,
  );
}
