// `npm start -- --help`: which arguments start, print the help or are refused, and a help that names every environment
// variable npm start reads (found in its source, so a new one cannot be left out).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/launcher/data-dir.ts';
import { DEV_SECRET_NAMES } from '../../local/launcher/dev-secrets.ts';
import { LAUNCHER_HELP, parseLauncherArgs } from '../../local/launcher/help.ts';

/** The launcher's files that other commands run, not npm start (`npm run seed`, `npm run webhook`, `npm run dev:worker`). */
const NOT_NPM_START = new Set(['seed-cli.ts', 'webhook-cli.ts', 'dev-worker.ts', 'dev-worker-vars.ts']);

function variablesReadBy(files: string[]): string[] {
  const names = new Set<string>();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)) names.add(match[1]!);
  }
  return [...names].sort();
}

describe('npm start arguments', () => {
  it('starts with none, prints the help for --help or -h, and refuses anything else', () => {
    expect(parseLauncherArgs([])).toEqual({ action: 'start' });
    expect(parseLauncherArgs(['--help'])).toEqual({ action: 'help' });
    expect(parseLauncherArgs(['-h'])).toEqual({ action: 'help' });
    for (const argv of [['--port', '9000'], ['--bogus'], ['start'], ['-x']]) {
      expect(parseLauncherArgs(argv)).toMatchObject({ action: 'refuse', problem: expect.any(String) });
    }
  });

  it('the help names every environment variable npm start reads', () => {
    const launcherDir = join(REPO_ROOT, 'local', 'launcher');
    const files = readdirSync(launcherDir)
      .filter((name) => name.endsWith('.ts') && !NOT_NPM_START.has(name))
      .map((name) => join(launcherDir, name));
    // The dev secrets are read by name from a list (local/launcher/dev-secrets.ts).
    const read = [...variablesReadBy([...files, join(REPO_ROOT, 'local', 'oidc', 'demo.ts')]), ...DEV_SECRET_NAMES];
    // Positive control: the scan finds the variables the help starts with.
    expect(read).toEqual(expect.arrayContaining(['PORT', 'RUNSTATE_DATA_DIR', 'REDIS_URL', 'DATABASE_URL']));
    const helped = (name: string): boolean =>
      new RegExp(`\\b${name}\\b`).test(LAUNCHER_HELP) ||
      // `UPSTASH_REDIS_REST_URL, _TOKEN` names the pair once.
      LAUNCHER_HELP.includes(`${name.replace(/_[A-Z]+$/, '')}_URL, ${name.slice(name.lastIndexOf('_'))}`);
    expect(read.filter((name) => !helped(name))).toEqual([]);
  });
});
