// Every Lua script lib declares stays under the Redis 6.0 command ceiling, touches Redis only through commands we
// allow, and binds its declared KEYS and ARGV names in its prologue, in the declared order.
import { describe, expect, it } from 'vitest';
import { COMMANDS_NEWER_THAN_6_0 } from '../../local/processes/redis-ceiling.ts';
import { LIB_SCRIPTS } from '../support/lib-scripts.ts';
import { prologueMismatches } from '../support/script-prologue.ts';

// Commands or options newer than Redis 6.0, which managed Redis 6.0 services refuse (docs/design/redis.md#redis-rules): the
// commands the test Redis renames away, plus ZRANGE's 6.2 options.
const NEWER_THAN_6_0 = [...Object.keys(COMMANDS_NEWER_THAN_6_0).map((command) => command.toUpperCase()), 'BYSCORE', 'BYLEX', 'REV'];
const ALLOWED = new Set([
  'GET',
  'SET',
  'DEL',
  'EXISTS',
  'INCR',
  // Redis 1.0: a tenant's count given back (lib/runtime/ratelimit/refund-tenant.ts).
  'DECR',
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

  it('binds each declared key and argument in its prologue, by name and in order', () => {
    expect(prologueMismatches(script)).toEqual([]);
  });
});

describe('the prologue check (positive controls)', () => {
  const declared = { name: 'control', keys: ['counter'], args: ['windowTtl', 'limit'] };
  const prologue = 'local counter_key = KEYS[1]\nlocal window_ttl = tonumber(ARGV[1])\nlocal limit = tonumber(ARGV[2])\n';

  it('accepts a prologue that agrees with the declaration', () => {
    expect(prologueMismatches({ ...declared, source: `\n${prologue}return redis.call('INCR', counter_key)` })).toEqual([]);
  });

  it('refuses names out of order, a name the declaration lacks, a missing one, and KEYS[n] or ARGV[n] past the prologue', () => {
    const swapped = 'local counter_key = KEYS[1]\nlocal limit = tonumber(ARGV[1])\nlocal window_ttl = tonumber(ARGV[2])\n';
    expect(prologueMismatches({ ...declared, source: swapped })).toEqual([
      'local limit = tonumber(ARGV[1]): ARGV[1] is declared as window_ttl',
      'local window_ttl = tonumber(ARGV[2]): ARGV[2] is declared as limit',
    ]);
    expect(prologueMismatches({ ...declared, source: `${prologue}local extra = ARGV[3]` })).toEqual([
      'local extra = ARGV[3]: ARGV[3] is not declared',
    ]);
    expect(prologueMismatches({ ...declared, source: 'local counter_key = KEYS[1]\nlocal window_ttl = ARGV[1]' })).toEqual([
      'ARGV[2] (limit) is declared but never bound',
    ]);
    expect(prologueMismatches({ ...declared, source: `${prologue}redis.call('SET', counter_key, ARGV[2])` })).toEqual([
      "redis.call('SET', counter_key, ARGV[2]): KEYS[n] and ARGV[n] appear only in the prologue, one a line (`local <name> = …`)",
    ]);
    expect(prologueMismatches({ ...declared, source: `${prologue}return 1\nlocal late = KEYS[1]` })).toEqual([
      'local late = KEYS[1]: after the prologue',
      'local late = KEYS[1]: KEYS[1] is declared as counter_key',
      'local late = KEYS[1]: KEYS[1] bound twice',
    ]);
  });

  it('holds rest lists to the loops that walk them', () => {
    const walk = `${prologue}for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end`;
    expect(prologueMismatches({ ...declared, restKeys: 'entries', source: walk })).toEqual([]);
    expect(prologueMismatches({ ...declared, source: walk })).toEqual(['the source walks KEYS but declares no rest list for it']);
    expect(prologueMismatches({ ...declared, restKeys: 'entries', source: walk.replace('i = 2', 'i = 1') })).toEqual([
      'entries: a loop starts at KEYS[1], not 2',
    ]);
    expect(prologueMismatches({ ...declared, restArgs: 'members', source: prologue })).toEqual([
      'members is declared but the source never walks ARGV',
    ]);
  });
});
