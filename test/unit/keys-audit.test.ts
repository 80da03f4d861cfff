// keys:audit's pure parts: what reads as a leak in a key name, how keys are redacted, the read-only gate, value checks.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base32Encode } from '../../lib/crypto/index.ts';
import { createKeyspace, inviteRecordSchema, KEY_REGISTRY, sessionRecordSchema } from '../../lib/keys/index.ts';
import { auditKeyspace } from '../../ops/keys-audit/audit-keyspace.ts';
import { assertReadOnly, ConnectionError, READ_ONLY_COMMANDS, type ReadOnlyRedis } from '../../ops/keys-audit/read-only-redis.ts';
import { keyLeaks, looksRandom, redactKey } from '../../ops/keys-audit/secrets-in-keys.ts';
import { stringValueProblem, valueCheckFor, zsetValueProblem } from '../../ops/keys-audit/value-checks.ts';

const keys = createKeyspace({ prefix: 'mhpay', env: 'prod' });
const ORG = '0192f0c1-0000-7000-8000-00000000000a';
const ID = '0192f0c1-0000-7000-8000-00000000000b';
const HEX = 'ab'.repeat(32);
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const row = (name: string) => KEY_REGISTRY.find((entry) => entry.name === name)!;

describe('leaks in key names', () => {
  it('finds an email (also URL-encoded), a JWT, a long random secret', () => {
    expect(keyLeaks('mhpay:prod:cache:alice@example.com')).toEqual(['email-in-key']);
    expect(keyLeaks('mhpay:prod:cache:alice%40example.com')).toEqual(['email-in-key']);
    expect(keyLeaks(`mhpay:prod:session:${JWT}`)).toEqual(['jwt-in-key']);
    expect(keyLeaks(`mhpay:prod:token:${randomBytes(32).toString('base64url')}`)).toEqual(['secret-in-key']);
    // One fixed secret: a random 32-character base32 one is missed ~2 % of the time (measured below), so a random one here
    // would fail one run in fifty.
    const totpSecret = base32Encode(createHash('sha256').update('a TOTP secret').digest().subarray(0, 20));
    expect(keyLeaks(`mhpay:prod:totp:${totpSecret}`)).toEqual(['secret-in-key']);
  });

  it('finds nothing in the keys the builders make: UUIDs, 64-hex digests, throttle window ids', () => {
    const built = [
      keys.inviteObject(ORG, ID),
      keys.inviteActiveByEmailHash(ORG, HEX as never),
      keys.revokedJti(HEX),
      keys.throttleCounter({ kind: 'org', id: ORG }, 'invite-create', HEX as never, 1_700_000_000),
      keys.mfaTotpUsed(ID, 56_666_666),
      keys.cronRunLock(),
    ];
    for (const key of built) expect(keyLeaks(key), key).toEqual([]);
  });

  it('leaves identifiers made of words alone, and catches random runs of 32 and 43 characters', () => {
    const identifiers = [
      'tenantResolveCacheForOutletMainStreet2',
      'ConnectionRefreshLockOwnerIdentifier',
      'Version2OfTheCacheKeyForOrganization1234',
      'SOME_CONSTANT_NAME_FOR_CACHE_KEYS_V2',
      'XMLHttpRequestCacheEntryForHTTPSRequests',
      'inviteEmailIndexesByOrgForCleanupTask',
      'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    ];
    for (const text of identifiers) expect(looksRandom(text), text).toBe(false);
    // Measured: 43 random base64url characters (our tokens' 32 bytes) are caught all but ~1 in 10 000 times,
    // 32 characters ~99 %, 32-character base32 (a TOTP secret) ~98 %.
    const missed = (make: () => string) => Array.from({ length: 2_000 }, make).filter((run) => !looksRandom(run)).length;
    expect(missed(() => randomBytes(32).toString('base64url'))).toBeLessThanOrEqual(5);
    expect(missed(() => randomBytes(24).toString('base64url'))).toBeLessThanOrEqual(60);
    expect(missed(() => base32Encode(randomBytes(20)))).toBeLessThanOrEqual(100);
  });
});

describe('redactKey', () => {
  it('keeps the shape of our keys: namespace, words, hash tags, UUIDs; digests cut to 8', () => {
    expect(redactKey(keys.inviteObject(ORG, ID))).toBe(keys.inviteObject(ORG, ID));
    expect(redactKey(keys.revokedJti(HEX))).toBe('mhpay:prod:platform:{denylist}:auth:revoked-jti:abababab…');
    expect(redactKey(keys.throttleCounter({ kind: 'org', id: ORG }, 'login', HEX as never, 1_700_000_000))).toBe(
      `mhpay:prod:org:{${ORG}}:throttle:counter:login.abababab….1700000000`,
    );
  });

  it('replaces what could be a value by its length', () => {
    const secret = randomBytes(32).toString('base64url');
    for (const key of [
      'mhpay:prod:x:alice@example.com',
      `mhpay:prod:s:${JWT}`,
      `mhpay:prod:t:${secret}`,
      'mhpay:prod:p:hunter2',
      'x'.repeat(400),
    ]) {
      const printed = redactKey(key);
      for (const value of ['alice', 'example.com', JWT.slice(0, 20), secret.slice(0, 8), 'hunter2']) expect(printed).not.toContain(value);
      expect(printed.length).toBeLessThanOrEqual(160);
    }
    expect(redactKey('mhpay:prod:x:alice@example.com')).toBe('mhpay:prod:x:‹17 chars›');
  });
});

describe('the read-only gate', () => {
  it('lets the audit’s commands through in any letter case and refuses every other', () => {
    expect(() => assertReadOnly(READ_ONLY_COMMANDS.map((name) => [name.toUpperCase(), name === 'info' ? 'memory' : 'k']))).not.toThrow();
    // INFO only for its memory section (the eviction policy): the others name clients' addresses and the keyspace.
    expect(() => assertReadOnly([['info', 'MEMORY']])).not.toThrow();
    for (const args of [[], ['clients'], ['all'], ['memory', 'clients']])
      expect(() => assertReadOnly([['info', ...args]]), args.join(' ')).toThrow(/INFO memory and no other/);
    for (const name of ['set', 'del', 'expire', 'eval', 'evalsha', 'flushall', 'unlink', 'persist', 'debug', 'config', 'keys', ''])
      expect(
        () =>
          assertReadOnly([
            ['get', 'k'],
            [name, 'k'],
          ]),
        name,
      ).toThrow(/only reads/);
  });
});

describe('value checks', () => {
  it('checks each JSON key with the schema its writer uses, the one declared with the key', () => {
    expect(valueCheckFor(row('inviteObject'))).toEqual({ kind: 'json', schema: inviteRecordSchema });
    expect(valueCheckFor(row('syrveRuntimeToken'))).toEqual({ kind: 'json', schema: sessionRecordSchema });
    // A schema that accepts anything would let any value through: every JSON key's refuses a stranger's object.
    for (const entry of KEY_REGISTRY.filter((e) => e.valueType === 'json'))
      expect(stringValueProblem(valueCheckFor(entry), JSON.stringify({ stranger: true })), entry.name).toMatch(/^fails its schema/);
  });

  it('names the failing path of a JSON value, never its content', () => {
    const check = valueCheckFor(row('inviteObject'));
    expect(stringValueProblem(check, 'not json')).toBe('not JSON');
    const problem = stringValueProblem(check, JSON.stringify({ inviteId: ID, canary: 'CANARY-1234' }));
    expect(problem).toMatch(/^fails its schema at /);
    expect(problem).not.toContain('CANARY');
  });

  it('checks a receipt’s embedded invite object too', () => {
    const receipt = { kind: 'accept', actorUserId: ID, attempt: ID, correlationId: 'c', consumedAtMs: 1, invite: '{}' };
    expect(stringValueProblem(valueCheckFor(row('inviteReceipt')), JSON.stringify(receipt))).toBe('fails its schema at invite');
  });

  it('holds markers, counters, lock owners and index members to their shapes', () => {
    expect(stringValueProblem(valueCheckFor(row('revokedSession')), '1')).toBeUndefined();
    expect(stringValueProblem(valueCheckFor(row('revokedSession')), 'yes')).toBe("not the marker '1'");
    expect(stringValueProblem(valueCheckFor(row('throttleCounter')), '12')).toBeUndefined();
    expect(stringValueProblem(valueCheckFor(row('throttleCounter')), '-1')).toBe('not a non-negative integer');
    expect(stringValueProblem(valueCheckFor(row('cronRunLock')), 'ab'.repeat(16))).toBeUndefined();
    expect(stringValueProblem(valueCheckFor(row('cronRunLock')), 'someone')).toMatch(/lock owner/);
    const index = valueCheckFor(row('inviteActiveByOrg'));
    expect(zsetValueProblem(index, ['0192f0c1000070008000000000000001', '1700000000'])).toBeUndefined();
    expect(zsetValueProblem(index, ['alice@example.com', '1700000000'])).toMatch(/member/);
    expect(zsetValueProblem(index, ['0192f0c1000070008000000000000001', '1.5'])).toBe('a score is not unix seconds');
  });
});

describe('the eviction policy read', () => {
  /** An endpoint that fails the whole request holding INFO (as a REST service that forbids it might) and has no keys. */
  const refusingInfo: ReadOnlyRedis = {
    async pipeline(commands) {
      if (commands.some(([name]) => name === 'info')) throw new ConnectionError('the REST endpoint answered 400');
      return commands.map(() => ({ ok: true, value: ['0', []] }));
    },
    close: async () => undefined,
  };

  it('is unknown, and no finding, when the request holding INFO fails as a whole; the walk goes on', async () => {
    const report = await auditKeyspace(refusingInfo, {
      store: 'revocation',
      namespace: { prefix: 'mhpay', env: 'test' },
      count: 10,
      rate: 1_000,
      maxValueBytes: 1_024,
      maxMembers: 10,
    });
    expect(report.eviction).toEqual({ store: 'revocation', policy: 'unknown' });
    expect(report.findings).toEqual([]);
  });
});
