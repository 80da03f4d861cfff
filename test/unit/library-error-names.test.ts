// The worker bundle is minified without keep_names (wrangler.toml): jose's and oauth4webapi's errors, which name
// themselves after their class, must still read as written in the logs (lib/auth/oidc/library-error-names.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

// Errors of both libraries, built in a bundle minified as wrangler.toml builds the worker (no keep_names).
const entry = (withNames: boolean): string => `
import { errors } from 'jose';
import * as oauth from 'oauth4webapi';
${withNames ? `import './lib/auth/oidc/library-error-names.ts';` : ''}
export const names = () => [
  new errors.JWTExpired('expired', {}).name,
  new errors.JWSSignatureVerificationFailed().name,
  new errors.JWKSNoMatchingKey().name,
  new oauth.OperationProcessingError('bad').name,
  new oauth.ResponseBodyError('bad', { cause: {}, response: new Response() }).name,
  new oauth.AuthorizationResponseError('bad', { cause: new URLSearchParams() }).name,
];
`;
const WRITTEN = [
  'JWTExpired',
  'JWSSignatureVerificationFailed',
  'JWKSNoMatchingKey',
  'OperationProcessingError',
  'ResponseBodyError',
  'AuthorizationResponseError',
];

let dir: string;

async function namesFromBundle(withNames: boolean): Promise<string[]> {
  const result = await build({
    stdin: { contents: entry(withNames), resolveDir: REPO_ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    minify: true,
    keepNames: false,
    write: false,
    logLevel: 'silent',
  });
  const file = join(dir, `names-${withNames}.mjs`);
  await writeFile(file, result.outputFiles[0]!.contents);
  return ((await import(file)) as { names: () => string[] }).names();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runstate-error-names-'));
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('library error names in a bundle without keep_names', () => {
  it('are the classes’ own names once library-error-names.ts has loaded', async () => {
    expect(await namesFromBundle(true)).toEqual(WRITTEN);
  });

  it('would be minified without it (what the module is for)', async () => {
    const names = await namesFromBundle(false);
    expect(names.filter((name) => WRITTEN.includes(name))).toEqual([]);
  });
});
