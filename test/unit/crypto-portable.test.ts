// lib/crypto and lib/keys must run in workerd: no node: imports, no Buffer, no process, no I/O in lib/keys.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

function sources(folder: string): Array<{ file: string; code: string }> {
  return readdirSync(join(root, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({
      file: `${folder}/${name}`,
      // Comments may mention Buffer or node:; only code counts.
      code: readFileSync(join(root, folder, name), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
    }));
}

describe.each(['lib/crypto', 'lib/keys'])('%s sources', (folder) => {
  it('use no Node-only API', () => {
    const files = sources(folder);
    expect(files.length).toBeGreaterThan(0);
    for (const { file, code } of files) {
      expect(code, file).not.toMatch(/from\s+['"]node:|require\(|\bBuffer\b|\bprocess\./);
    }
  });
});

describe('lib/keys sources', () => {
  it('do no I/O', () => {
    for (const { file, code } of sources('lib/keys')) {
      expect(code, file).not.toMatch(/\bfetch\(|@upstash|ioredis|\.\.\/redis\/|\.\.\/pg\/|neondatabase/);
    }
  });
});
