// The one list of Redis error replies that mean "cannot serve now", everything else a defect (lib/redis/reply-class.ts),
// and how a Redis call's failure becomes RedisUnavailableError or RedisDefectError (lib/redis/errors.ts).
import { errors as upstashErrors } from '@upstash/redis/cloudflare';
import { describe, expect, it } from 'vitest';
import { RedisDefectError, redisCall, RedisUnavailableError } from '../../lib/redis/index.ts';
import { CANNOT_SERVE_NOW_REPLIES, errorReplyOf, replyClass, replyCode } from '../../lib/redis/reply-class.ts';

// Replies as Redis 7.0 and Upstash word them (the script ones as EVAL answers them).
const CANNOT_SERVE = [
  'LOADING Redis is loading the dataset in memory',
  "READONLY You can't write against a read only replica. script: 5f2c…, on @user_script:3.",
  'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
  "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
  'CLUSTERDOWN The cluster is down',
  'TRYAGAIN Multiple keys request during rehashing of slot',
  "OOM command not allowed when used memory > 'maxmemory'.",
  'ERR max daily request limit exceeded. Limit: 10000, Usage: 10000.',
  'ERR max requests limit exceeded.',
  'ERR max concurrent connections exceeded',
  'ERR DB capacity quota exceeded',
  'ERR the proxy could not reach Redis: connect ECONNREFUSED 127.0.0.1:6390',
  'ERR injected fault',
];
const DEFECTS = [
  'WRONGTYPE Operation against a key holding the wrong kind of value script: fd1f…, on @user_script:1.',
  "ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: c797…, on @user_script:1.",
  "ERR Error compiling script (new function): user_script:1: '=' expected near '1'",
  'ERR syntax error',
  'ERR value is not an integer or out of range',
  "ERR unknown command 'NOPE', with args beginning with: ",
  'BUSYKEY Target key name already exists.',
  'NOSCRIPT No matching script. Please use EVAL.',
  'WRONGPASS invalid or missing auth token',
  'ERR maximum concurrent connections', // not Upstash's wording: a word of the entry is not the entry
];

describe('replyClass', () => {
  it('lists LOADING, READONLY, BUSY, MASTERDOWN, CLUSTERDOWN, TRYAGAIN, OOM and Upstash quota and rate answers as cannot serve now', () => {
    for (const reply of CANNOT_SERVE) expect(replyClass(reply), reply).toBe('cannot-serve-now');
    for (const code of ['LOADING', 'READONLY', 'BUSY', 'MASTERDOWN', 'CLUSTERDOWN', 'TRYAGAIN', 'OOM'])
      expect(CANNOT_SERVE_NOW_REPLIES).toContain(code);
  });

  it('holds every other error reply a defect: script errors, WRONGTYPE, syntax errors, and a word that only starts like an entry', () => {
    for (const reply of DEFECTS) expect(replyClass(reply), reply).toBe('defect');
    expect(replyClass('LOADINGX')).toBe('defect');
    expect(replyClass('OOM')).toBe('cannot-serve-now');
  });

  it('logs only the first word of a reply', () => {
    expect(replyCode(DEFECTS[0]!)).toBe('WRONGTYPE');
    expect(replyCode("ERR user_script:1: 'secret-value'")).toBe('ERR');
    expect(replyCode('  nothing')).toBe('unknown');
  });
});

describe('errorReplyOf', () => {
  it('reads the reply out of each form @upstash/redis throws it in, and nothing out of a store that did not answer', () => {
    const { UpstashError, UpstashJSONParseError } = upstashErrors;
    expect(errorReplyOf(new UpstashError('WRONGTYPE Operation against a key, command was: ["evalsha","k"]'))).toMatch(/^WRONGTYPE/);
    expect(errorReplyOf(new UpstashError('Command 2 [ GET ] failed: WRONGTYPE Operation against a key'))).toMatch(/^WRONGTYPE/);
    expect(errorReplyOf(new UpstashError('Command failed: LOADING Redis is loading'))).toMatch(/^LOADING/);
    expect(errorReplyOf(new UpstashJSONParseError('<html>502 Bad Gateway</html>'))).toBeUndefined();
    expect(errorReplyOf(new TypeError('fetch failed'))).toBeUndefined();
    expect(errorReplyOf(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toBeUndefined();
  });
});

describe('redisCall', () => {
  const { UpstashError } = upstashErrors;
  const failing = (error: unknown) => redisCall('test.op', () => Promise.reject(error));

  it('throws RedisDefectError for a defect reply, naming the operation and the reply code only', async () => {
    const thrown = await failing(new UpstashError('WRONGTYPE Operation against a key, command was: ["get","secret-key-canary"]')).catch(
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(RedisDefectError);
    expect(thrown).not.toBeInstanceOf(RedisUnavailableError);
    expect((thrown as RedisDefectError).replyCode).toBe('WRONGTYPE');
    expect((thrown as Error).message).toBe('redis answered WRONGTYPE to test.op');
  });

  it('throws RedisUnavailableError for a cannot-serve-now reply and for a store that did not answer', async () => {
    for (const error of [new UpstashError('READONLY You can\'t write, command was: ["set"]'), new TypeError('fetch failed')])
      await expect(failing(error)).rejects.toBeInstanceOf(RedisUnavailableError);
  });
});
