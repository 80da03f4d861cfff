// The Redis 6.0 ceiling in TypeScript: no client call or option newer than 6.0 anywhere the deployed code lives
// (the Lua side is held by test/unit/lua-scripts.test.ts). A managed Redis 6.0 answers those with an error.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What ships (lib, functions) and what runs against a deployment's Redis (ops). */
const SCANNED = ['lib', 'functions', 'ops'];

/** Client methods of @upstash/redis whose commands are newer than Redis 6.0, with the version that added each. */
const NEWER_COMMANDS: Record<string, string> = {
  getdel: '6.2',
  getex: '6.2',
  lmove: '6.2',
  blmove: '6.2',
  lmpop: '7.0',
  zmpop: '7.0',
  copy: '6.2',
  zrangestore: '6.2',
  zrandmember: '6.2',
  zdiff: '6.2',
  zinter: '6.2',
  zunion: '6.2',
  smismember: '6.2',
  hrandfield: '6.2',
  geosearch: '6.2',
  xautoclaim: '6.2',
  expiretime: '7.0',
  pexpiretime: '7.0',
  sintercard: '7.0',
  lcs: '7.0',
};

/** Options newer than 6.0 on commands that exist in 6.0: SET … GET, ZRANGE BYSCORE/REV/BYLEX/LIMIT, ZADD GT/LT, EXPIRE NX/XX/GT/LT. */
const NEWER_OPTIONS: Array<[RegExp, string]> = [
  [/\.set\([^)]*\bget:\s*true/, 'SET … GET (6.2)'],
  [/\.zrange\([^)]*\b(byScore|byLex|rev):\s*true/, 'ZRANGE BYSCORE/BYLEX/REV (6.2)'],
  [/\.zadd\([^)]*\b(gt|lt):\s*true/, 'ZADD GT/LT (6.2)'],
  [/\.(p?expire(at)?)\([^)]*['"](NX|XX|GT|LT)['"]/, 'EXPIRE NX/XX/GT/LT (7.0)'],
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Each offending use in `source`, as "what (version)". */
function newerThan60(source: string): string[] {
  const found: string[] = [];
  for (const [method, version] of Object.entries(NEWER_COMMANDS)) {
    if (new RegExp(`\\.${method}\\s*[(<]`, 'i').test(source)) found.push(`${method.toUpperCase()} (${version})`);
    // A raw command array or an EVAL body naming it.
    if (new RegExp(`['"\`]${method}['"\`]`, 'i').test(source)) found.push(`'${method.toUpperCase()}' (${version})`);
  }
  for (const [pattern, what] of NEWER_OPTIONS) if (pattern.test(source)) found.push(what);
  return found;
}

describe('the Redis 6.0 ceiling in TypeScript', () => {
  it('finds what it looks for (positive control)', () => {
    expect(newerThan60('await redis.atMostOnce.getdel(key)')).toContain('GETDEL (6.2)');
    expect(newerThan60('client.eval("return redis.call(\'GETEX\', KEYS[1])", [k], [])')).toContain("'GETEX' (6.2)");
    expect(newerThan60("pipeline.set(key, '1', { ex: 60, get: true })")).toContain('SET … GET (6.2)');
    expect(newerThan60('redis.zrange(key, 0, 10, { byScore: true })')).toContain('ZRANGE BYSCORE/BYLEX/REV (6.2)');
    expect(newerThan60('redis.zadd(key, { gt: true }, { score: 1, member: "a" })')).toContain('ZADD GT/LT (6.2)');
    expect(newerThan60("redis.expire(key, 10, 'NX')")).toContain('EXPIRE NX/XX/GT/LT (7.0)');
    expect(newerThan60("redis.set(key, '1', { ex: 60, nx: true }); redis.zrange(key, 0, -1)")).toEqual([]);
  });

  const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  it.each(files.map((file) => [relative(ROOT, file), file] as const))('%s calls nothing newer than Redis 6.0', (_name, file) => {
    expect(newerThan60(readFileSync(file, 'utf8'))).toEqual([]);
  });
});
