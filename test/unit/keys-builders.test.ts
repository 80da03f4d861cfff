// Key builders: whatever they are given, they either refuse with KeyError or return a key of the exact registered shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createKeyspace, hashEmail, KEY_REGISTRY, KeyError, matchingRegistryEntries, type HashedSegment } from '../../lib/keys/index.ts';
import { HASH_KEY, hostileString, keyEnv, keyPrefix, looksLikeUuid, validUuid } from './keys-arbitraries.ts';
import { BUILDER_CASES, type BuilderCase, type ExpectedKey } from './keys-cases.ts';

function checkKey(key: string, prefix: string, env: string, expected: ExpectedKey, name: string): void {
  expect(key.length).toBeLessThan(200);
  // Lowercase alphanumerics, ':', '-', '.', and the braces of the hash tag: no '@', whitespace or glob characters.
  expect(key).toMatch(/^[a-z0-9:.{}-]+$/);
  const segments = key.split(':');
  const tail = [expected.domain, expected.purpose, expected.id];
  if (expected.scope.kind === 'platform' && expected.scope.tag !== undefined) {
    // A named platform hash tag: exactly one brace pair, around the tag.
    expect(segments).toEqual([prefix, env, 'platform', `{${expected.scope.tag}}`, ...tail]);
    expect(key.match(/\{/g)).toHaveLength(1);
    expect(key.slice(key.indexOf('{') + 1, key.indexOf('}'))).toBe(expected.scope.tag);
  } else if (expected.scope.kind === 'platform') {
    expect(segments).toEqual([prefix, env, 'platform', ...tail]);
    expect(key).not.toMatch(/[{}]/);
  } else {
    expect(segments).toEqual([prefix, env, expected.scope.kind, `{${expected.scope.id}}`, ...tail]);
    // Exactly one brace pair, around this scope's id: the whole key hashes to that scope's slot.
    expect(key.match(/\{/g)).toHaveLength(1);
    expect(key.match(/\}/g)).toHaveLength(1);
    expect(key.slice(key.indexOf('{') + 1, key.indexOf('}'))).toBe(expected.scope.id);
  }
  // The key belongs to exactly one registry entry, the builder's own.
  expect(matchingRegistryEntries(key).map((entry) => entry.name)).toEqual([name]);
  expect(matchingRegistryEntries(key, { prefix, env: env as 'dev' })).toHaveLength(1);
}

function tryBuild(testCase: BuilderCase, prefix: string, env: 'dev' | 'test' | 'staging' | 'prod', args: unknown[]): string | KeyError {
  try {
    return testCase.call(createKeyspace({ prefix, env }), args);
  } catch (error) {
    if (error instanceof KeyError) return error;
    throw error;
  }
}

/** Re-cases UUIDs only, in plain arguments and in scope objects. */
function recase(arg: unknown, change: (id: string) => string): unknown {
  if (typeof arg === 'string') return looksLikeUuid(arg) ? change(arg) : arg;
  if (arg !== null && typeof arg === 'object' && 'id' in arg && typeof arg.id === 'string') return { ...arg, id: change(arg.id) };
  return arg;
}

describe.each(BUILDER_CASES)('$name', (testCase) => {
  it('returns the registered key shape for valid input', () => {
    fc.assert(
      fc.property(keyPrefix, keyEnv, testCase.valid, (prefix, env, args) => {
        const key = tryBuild(testCase, prefix, env, args);
        const expected = testCase.expect(args);
        expect(expected.valid).toBe(true);
        expect(key).toBeTypeOf('string');
        checkKey(key as string, prefix, env, expected, testCase.name);
      }),
    );
  });

  it('either throws KeyError or returns a well-formed key, whatever it is given', () => {
    fc.assert(
      fc.property(keyPrefix, keyEnv, testCase.any, (prefix, env, args) => {
        const result = tryBuild(testCase, prefix, env, args);
        const expected = testCase.expect(args);
        if (result instanceof KeyError) {
          expect(expected.valid, 'refused acceptable input').toBe(false);
        } else {
          expect(expected.valid, 'accepted unacceptable input').toBe(true);
          checkKey(result, prefix, env, expected, testCase.name);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('builds the same key for an upper- and a lower-case id', () => {
    fc.assert(
      fc.property(testCase.valid, (args) => {
        const keyspace = createKeyspace({ prefix: 'mhpay', env: 'prod' });
        const upper = args.map((arg) => recase(arg, (id) => id.toUpperCase()));
        const lower = args.map((arg) => recase(arg, (id) => id.toLowerCase()));
        expect(testCase.call(keyspace, upper)).toBe(testCase.call(keyspace, lower));
      }),
    );
  });
});

it('covers every registry entry with a builder case', () => {
  // Data-only rows (reserved shapes nothing writes yet) have no builder.
  expect(BUILDER_CASES.map((c) => c.name).sort()).toEqual(
    KEY_REGISTRY.filter((e) => e.dataOnly !== true)
      .map((e) => e.name)
      .sort(),
  );
});

describe('createKeyspace', () => {
  it('accepts only a valid prefix and env', () => {
    fc.assert(
      fc.property(fc.oneof(keyPrefix, hostileString), fc.oneof(keyEnv, hostileString), (prefix, env) => {
        const valid = /^[a-z][a-z0-9-]{0,15}$/.test(prefix) && ['dev', 'test', 'staging', 'prod'].includes(env);
        if (valid) expect(createKeyspace({ prefix, env: env as 'dev' }).scanPattern).toBe(`${prefix}:${env}:*`);
        else expect(() => createKeyspace({ prefix, env: env as 'dev' })).toThrow(KeyError);
      }),
    );
  });

  it('builds the examples of docs/design/keys.md#keys', () => {
    const keyspace = createKeyspace({ prefix: 'mhpay', env: 'prod' });
    expect(keyspace.inviteObject('0192f0c1-0000-7000-8000-000000000001', '0192f0c2-0000-7000-8000-000000000002')).toBe(
      'mhpay:prod:org:{0192f0c1-0000-7000-8000-000000000001}:invite:object:0192f0c2-0000-7000-8000-000000000002',
    );
    expect(keyspace.revokedSession('0192F0C3-0000-7000-8000-000000000003')).toBe(
      'mhpay:prod:platform:{denylist}:auth:revoked-session:0192f0c3-0000-7000-8000-000000000003',
    );
    expect(keyspace.inviteActiveByOrg('0192f0c1-0000-7000-8000-000000000001')).toBe(
      'mhpay:prod:org:{0192f0c1-0000-7000-8000-000000000001}:invite:active-by-org:0192f0c1-0000-7000-8000-000000000001',
    );
  });

  it('keeps the longest possible key under 200 characters', () => {
    const keyspace = createKeyspace({ prefix: 'a'.repeat(16), env: 'staging' });
    const key = keyspace.throttleCounter(
      { kind: 'outlet', id: '0192f0c1-0000-7000-8000-000000000001' },
      'password-reset',
      'f'.repeat(64) as HashedSegment,
      9_999_999_999,
    );
    expect(key.length).toBeLessThan(200);
  });
});

describe('Lua key prefixes', () => {
  it('are the exact key minus its last segment, inside the same hash tag', () => {
    fc.assert(
      fc.asyncProperty(validUuid, validUuid, fc.emailAddress(), async (org, invite, email) => {
        const keyspace = createKeyspace({ prefix: 'mhpay', env: 'test' });
        const hash = await hashEmail(HASH_KEY, email);
        expect(keyspace.inviteObjectPrefix(org) + invite.toLowerCase()).toBe(keyspace.inviteObject(org, invite));
        expect(keyspace.inviteActiveByEmailHashPrefix(org) + hash).toBe(keyspace.inviteActiveByEmailHash(org, hash));
        expect(keyspace.inviteObjectPrefix(org)).toMatch(/:$/);
        expect(keyspace.inviteObjectPrefix(org)).toContain(`org:{${org.toLowerCase()}}:`);
      }),
    );
  });

  it('refuse a bad org id', () => {
    const keyspace = createKeyspace({ prefix: 'mhpay', env: 'test' });
    expect(() => keyspace.inviteObjectPrefix('*')).toThrow(KeyError);
    expect(() => keyspace.inviteActiveByEmailHashPrefix('org:{x}')).toThrow(KeyError);
  });
});

describe('emails never reach a key', () => {
  it('keys built from a hashed email contain neither the email nor its local part', async () => {
    await fc.assert(
      fc.asyncProperty(fc.emailAddress(), validUuid, keyPrefix, keyEnv, async (email, org, prefix, env) => {
        const keyspace = createKeyspace({ prefix, env });
        const hash = await hashEmail(HASH_KEY, email);
        const local = email.slice(0, email.lastIndexOf('@')).toLowerCase();
        for (const key of [
          keyspace.inviteActiveByEmailHash(org, hash),
          keyspace.throttleCounter({ kind: 'org', id: org }, 'invite-create', hash, 1_700_000_000),
          keyspace.throttleCounter({ kind: 'platform' }, 'login', hash, 1_700_000_000),
        ]) {
          expect(key).not.toContain('@');
          expect(key.toLowerCase()).not.toContain(email.toLowerCase());
          // A local part made only of hex characters, or one that is a word of the key itself (say "prod"),
          // can occur by chance; any other local part found in the key is a leak.
          const byChance = /^[0-9a-f.-]+$/.test(local) || key.replace(hash, '').includes(local);
          if (local.length >= 4 && !byChance) expect(key.toLowerCase()).not.toContain(local);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a raw email handed to a builder is refused at compile time and at run time', () => {
    const keyspace = createKeyspace({ prefix: 'mhpay', env: 'test' });
    const org = '0192f0c1-0000-7000-8000-000000000001';
    // @ts-expect-error a raw string is not a HashedSegment
    expect(() => keyspace.inviteActiveByEmailHash(org, 'someone@example.com')).toThrow(KeyError);
    // @ts-expect-error a raw string is not a HashedSegment
    expect(() => keyspace.throttleCounter({ kind: 'platform' }, 'login', '203.0.113.7', 0)).toThrow(KeyError);
  });
});

describe('KeyError from a builder', () => {
  it('never echoes the value it refused', () => {
    const secretLike = fc
      .tuple(fc.constantFrom('sk_live_', 'whsec_', 'pa55word:', 'eyJhbGciOi'), fc.string({ unit: 'binary', minLength: 6 }))
      .map(([a, b]) => a + b);
    const org = '0192f0c1-0000-7000-8000-000000000001';
    const keyspace = createKeyspace({ prefix: 'mhpay', env: 'test' });
    fc.assert(
      fc.property(fc.oneof(secretLike, fc.emailAddress()), (secret) => {
        const s = secret as HashedSegment;
        const attempts = [
          () => keyspace.inviteObject(secret, org),
          () => keyspace.inviteObject(org, secret),
          () => keyspace.inviteActiveByEmailHash(org, s),
          () => keyspace.mfaChallenge(secret, org),
          () => keyspace.throttleCounter({ kind: 'user', id: secret }, 'login', 'a'.repeat(64) as HashedSegment, 0),
          () => keyspace.throttleCounter({ kind: 'platform' }, secret as 'login', 'a'.repeat(64) as HashedSegment, 0),
          () => keyspace.throttleCounter({ kind: 'platform' }, 'login', s, 0),
          () => keyspace.jobCache({ kind: secret as 'org', id: org }, org),
          () => keyspace.revokedJti(secret),
          () => createKeyspace({ prefix: secret, env: 'test' }),
          () => createKeyspace({ prefix: 'mhpay', env: secret as 'test' }),
        ];
        for (const attempt of attempts) {
          let caught: unknown;
          try {
            attempt();
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(KeyError);
          const error = caught as KeyError;
          for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify({ ...error })])
            expect(text).not.toContain(secret);
        }
      }),
    );
  });
});
