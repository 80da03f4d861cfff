// Process plumbing for the embedded PostgreSQL: run initdb, spot a server already up, wait for readiness, stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { RunAs } from './postgres-os-user.ts';

/** A small, fixed environment: the server needs no secrets of ours, and C messages keep its log predictable. */
export function serverEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' };
}

/** Runs a program to completion, rejecting with its output when it fails. */
export function runProgram(file: string, args: string[], runAs: RunAs | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: serverEnv(), ...runAs });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${file} failed (${signal ?? `exit ${code}`}):\n${output.trim()}`));
    });
  });
}

/** The pid and port of a server still running on `dataDir` (from its postmaster.pid), if any. */
export function runningServer(dataDir: string): { pid: number; port: number } | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { pid, port };
}

/** Polls until the server accepts a session; fails early, with the log's tail, if `child` exits first. */
export async function waitUntilReady(
  connectionString: string,
  options: { child?: ChildProcess; logFile: string; timeoutMs: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    const { child } = options;
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`PostgreSQL exited during start-up. Last lines of ${options.logFile}:\n${logTail(options.logFile)}`);
    }
    const client = new pg.Client({ connectionString });
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return;
    } catch (error) {
      lastError = (error as Error).message;
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`PostgreSQL did not accept connections within ${options.timeoutMs / 1000} s (${lastError}); see ${options.logFile}`);
}

/** Fast shutdown (SIGINT: end sessions, checkpoint, exit); SIGKILL only if it hangs. */
export function stopServer(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGINT');
  });
}

function logTail(logFile: string, lines = 15): string {
  try {
    return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
