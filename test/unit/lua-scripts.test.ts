// Every Lua script lib declares stays under the Redis 6.0 command ceiling and touches Redis only through commands we allow.
import { describe, expect, it } from 'vitest';
import { COMMANDS_NEWER_THAN_6_0 } from '../../local/processes/redis-ceiling.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';

// Commands or options newer than Redis 6.0, which managed Redis 6.0 services refuse (docs/design/redis.md#redis-rules): the
// commands the test Redis renames away, plus ZRANGE's 6.2 options.
const NEWER_THAN_6_0 = [...Object.keys(COMMANDS_NEWER_THAN_6_0).map((command) => command.toUpperCase()), 'BYSCORE', 'BYLEX', 'REV'];
const ALLOWED = new Set([
  'GET',
  'SET',
  'DEL',
  'EXISTS',
  'INCR',
  'EXPIRE',
  'TTL',
  'PTTL',
  'ZADD',
  'ZREM',
  'ZRANGE',
  'ZRANGEBYSCORE',
  'ZREMRANGEBYSCORE',
  'ZSCORE',
  'ZRANK',
  'ZCOUNT',
  // Redis 1.2 / 2.0: the bounded miss set of tenant resolution counts and trims itself.
  'ZCARD',
  'ZREMRANGEBYRANK',
]);

describe.each(LIB_SCRIPTS.map((s) => [s.name, s] as const))('%s', (_name, script) => {
  it('uses only allowed commands, none newer than Redis 6.0', () => {
    const calls = [...script.source.matchAll(/redis\.call\('([A-Z]+)'/g)].map((m) => m[1]!);
    expect(calls.length).toBeGreaterThan(0);
    for (const command of calls) expect(ALLOWED.has(command), command).toBe(true);
    for (const word of NEWER_THAN_6_0) expect(script.source.toUpperCase()).not.toMatch(new RegExp(`'${word}'`));
    // SET with a GET option, ZADD GT/LT and EXPIRE NX/XX/GT/LT are 6.2+/7.0 options.
    expect(script.source).not.toMatch(/'SET'[^)]*'GET'/);
    expect(script.source).not.toMatch(/'(ZADD|EXPIRE)'[^)]*'(GT|LT|NX|XX)'/);
    // A `#!lua flags=…` first line is 7.0 (Redis 6 reads it as a Lua syntax error).
    expect(script.source.trimStart().startsWith('#!')).toBe(false);
  });
});
