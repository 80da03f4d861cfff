// The Redis 6.0 ceiling in TypeScript: no client call or option newer than 6.0 anywhere the deployed code lives
// (the Lua side is held by test/unit/lua-scripts.test.ts). A managed Redis 6.0 answers those with an error.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ceilingCommandsFor, COMMANDS_NEWER_THAN_6_0, parseServerVersion, refusedRename } from '../../local/processes/redis-ceiling.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** What ships (lib, functions) and what runs against a deployment's Redis (ops). */
const SCANNED = ['lib', 'functions', 'ops'];

/** The @upstash/redis method of a command: `eval_ro` is `evalRo`. */
const methodOf = (command: string): string => command.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * Commands newer than 6.0, the same list the test Redis renames away (local/processes/redis-ceiling.ts), as client
 * methods. RESET is left out (`activeContext.reset(` is ours; the proxy and Upstash refuse RESET anyway), and
 * FUNCTION is the client's `functions.*` namespace, matched apart.
 */
const NEWER_COMMANDS = Object.entries(COMMANDS_NEWER_THAN_6_0)
  .filter(([command]) => command !== 'reset' && command !== 'function')
  .map(([command, since]) => ({ command, method: methodOf(command), version: since.replace(/\.0$/, '') }));

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
  for (const { command, method, version } of NEWER_COMMANDS) {
    if (new RegExp(`\\.${method}\\s*[(<]`, 'i').test(source)) found.push(`${command.toUpperCase()} (${version})`);
    // A raw command array or an EVAL body naming it.
    if (new RegExp(`['"\`]${command}['"\`]`, 'i').test(source)) found.push(`'${command.toUpperCase()}' (${version})`);
  }
  if (/\.functions\s*\.\s*\w+\s*\(/.test(source)) found.push('FUNCTION (7.0)');
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
    expect(newerThan60('await client.evalRo(script, [k], [])')).toContain('EVAL_RO (7.0)');
    expect(newerThan60('await client.zmscore(k, ["a"])')).toContain('ZMSCORE (6.2)');
    expect(newerThan60("fetch(url, { body: JSON.stringify(['hgetdel', k, 'f']) })")).toContain("'HGETDEL' (8.0)");
    expect(newerThan60("await client.functions.load({ code: '' })")).toContain('FUNCTION (7.0)');
    expect(newerThan60("redis.set(key, '1', { ex: 60, nx: true }); redis.zrange(key, 0, -1)")).toEqual([]);
  });

  const files = SCANNED.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  it.each(files.map((file) => [relative(ROOT, file), file] as const))('%s calls nothing newer than Redis 6.0', (_name, file) => {
    expect(newerThan60(readFileSync(file, 'utf8'))).toEqual([]);
  });
});

describe('the renames a redis-server gets (local/processes/redis-ceiling.ts)', () => {
  it('are the commands its version has: none on 6.0, 6.2 ones on 6.2, all through 7.0 on 7.0.15', () => {
    expect(ceilingCommandsFor('6.0.20')).toEqual([]);
    expect(ceilingCommandsFor('6.2.14')).toContain('getdel');
    expect(ceilingCommandsFor('6.2.14')).not.toContain('lmpop');
    expect(ceilingCommandsFor('7.0.15')).toEqual(expect.arrayContaining(['getdel', 'lmpop', 'function', 'eval_ro']));
    expect(ceilingCommandsFor('7.0.15')).not.toContain('hexpire');
    expect(ceilingCommandsFor('8.0.2')).toEqual(Object.keys(COMMANDS_NEWER_THAN_6_0));
  });

  it('reads the version from redis-server --version, and the command a fork refused to rename', () => {
    expect(parseServerVersion('Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0')).toBe('7.0.15');
    expect(parseServerVersion('something else')).toBeUndefined();
    const refusal = `*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>> 'rename-command HGETEX ""'\nNo such command in rename-command\n`;
    expect(refusedRename(refusal)).toBe('hgetex');
    expect(refusedRename('Address already in use')).toBeUndefined();
  });
});
