// Staging PostgreSQL under the temp folder as root: a folder someone else made is refused, only a whole copy of this version is reused.
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import type { PostgresBinaries } from '../../local/processes/postgres-binaries.ts';
import { postgresRunAs } from '../../local/processes/postgres-os-user.ts';
import { placePostgres, stagingRootFor } from '../../local/processes/postgres-staging.ts';

const NOBODY = 65534;
const cleanUp: string[] = [];

afterEach(() => {
  for (const dir of cleanUp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder closed to others (0700), like /root; under .data/ so it is git-ignored. */
function closedFolder(): string {
  mkdirSync(join(REPO_ROOT, '.data'), { recursive: true, mode: 0o711 });
  const dir = mkdtempSync(join(REPO_ROOT, '.data', 'closed-'));
  chmodSync(dir, 0o700);
  cleanUp.push(dir);
  return dir;
}

/** A small stand-in for the platform package, inside a closed folder: what staging copies is the same shape. */
function fakeBinaries(version: string): PostgresBinaries {
  const home = join(closedFolder(), 'native');
  for (const sub of ['bin', 'lib', 'share']) mkdirSync(join(home, sub), { recursive: true });
  writeFileSync(join(home, 'bin', 'postgres'), '#!/bin/sh\n', { mode: 0o777 });
  writeFileSync(join(home, 'bin', 'initdb'), '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(join(home, 'lib', 'libpq.so.5.17'), 'lib');
  symlinkSync('libpq.so.5.17', join(home, 'lib', 'libpq.so.5'));
  return { home, version, initdb: join(home, 'bin', 'initdb'), postgres: join(home, 'bin', 'postgres') };
}

function elsewhere(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runstate-elsewhere-'));
  cleanUp.push(dir);
  return dir;
}

/** A data folder `postgres` can reach, so only the binaries are staged. */
function openDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'runstate-staging-test-'));
  chmodSync(dir, 0o711);
  cleanUp.push(dir);
  return join(dir, 'pg');
}

describe.runIf(process.getuid?.() === 0)('staging PostgreSQL for the `postgres` user', () => {
  const runAs = postgresRunAs();

  it.each([
    ['owned by another user', (root: string) => (mkdirSync(root, { mode: 0o711 }), chownSync(root, NOBODY, NOBODY))],
    ['writable by others', (root: string) => (mkdirSync(root), chmodSync(root, 0o777))],
    ['a symbolic link', (root: string) => symlinkSync(elsewhere(), root)],
  ])('refuses a staging folder that is %s, naming it and the fix, and writes nothing into it', async (_, plant) => {
    const binaries = fakeBinaries('1.0.0');
    const dataDir = join(closedFolder(), 'pg');
    const root = stagingRootFor(binaries.home, dataDir);
    cleanUp.push(root);
    plant(root);
    await expect(placePostgres(binaries, dataDir, runAs)).rejects.toThrow(`${root} `);
    await expect(placePostgres(binaries, dataDir, runAs)).rejects.toThrow(/cannot be trusted.*rm -rf/);
    expect(readdirSync(root)).toEqual([]);
  });

  it('copies into a temporary name, reuses only a whole copy of the same version, and leaves postgres no write access', async () => {
    const binaries = fakeBinaries('1.0.0');
    const dataDir = openDataDir();
    const root = stagingRootFor(binaries.home, dataDir);
    cleanUp.push(root);
    // Left-overs: a copy cut short, and an older version.
    mkdirSync(join(root, '.partial-0123456789ab', 'bin'), { recursive: true, mode: 0o711 });
    mkdirSync(join(root, 'postgres-0.9.0'));
    chmodSync(root, 0o711);

    const first = await placePostgres(binaries, dataDir, runAs);
    expect(first.staging?.line).toBe(
      `staging PostgreSQL in ${root}/ (binaries copied) because ${join(binaries.home, '..')} is closed to the \`postgres\` user`,
    );
    expect(first.dataDir).toBe(dataDir);
    expect(first.binaries.postgres).toBe(join(root, 'postgres-1.0.0', 'bin', 'postgres'));
    expect(readdirSync(root)).toEqual(['postgres-1.0.0']);
    expect(statSync(first.binaries.postgres).mode & 0o777).toBe(0o755);
    expect(statSync(root).mode & 0o777).toBe(0o711);
    expect(existsSync(join(root, 'postgres-1.0.0', 'lib', 'libpq.so.5'))).toBe(true);

    const second = await placePostgres(binaries, dataDir, runAs);
    expect(second.staging?.line).toContain('(binaries reused)');

    // A staged copy others could write to is not trusted: copied afresh.
    chmodSync(join(root, 'postgres-1.0.0'), 0o777);
    expect((await placePostgres(binaries, dataDir, runAs)).staging?.line).toContain('(binaries copied)');

    const upgraded = await placePostgres({ ...binaries, version: '1.1.0' }, dataDir, runAs);
    expect(upgraded.staging?.line).toContain('(binaries copied)');
    expect(readdirSync(root)).toEqual(['postgres-1.1.0']);
  });

  it('keeps a cluster already in a closed data folder where it is, with the fix in the error', async () => {
    const binaries = fakeBinaries('1.0.0');
    const closed = closedFolder();
    const dataDir = join(closed, 'pg');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'PG_VERSION'), '17\n');
    await expect(placePostgres(binaries, dataDir, runAs)).rejects.toThrow(`${closed} is closed to others. Run \`chmod o+x ${closed}\``);
    expect(existsSync(stagingRootFor(binaries.home, dataDir))).toBe(false);
  });
});
