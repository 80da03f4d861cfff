// The registry as data and the keyspace audit: one entry per live key, and the findings a cleanup tool needs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditKey, createKeyspace, findRegistryEntry, KEY_REGISTRY, matchingRegistryEntries, type KeyName } from '../../lib/keys/index.ts';
import { hostileString, keyEnv, keyPrefix } from './keys-arbitraries.ts';
import { KEY_NOTES } from '../../ops/keys-doc/notes.ts';
import { BUILDER_CASES } from './keys-cases.ts';

const ORG = '0192f0c1-0000-7000-8000-000000000001';
const OTHER = '0192f0c1-0000-7000-8000-000000000002';
const keyspace = createKeyspace({ prefix: 'mhpay', env: 'prod' });

function registryEntry(name: KeyName) {
  const found = KEY_REGISTRY.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no registry entry named ${name}`);
  return found;
}

describe('KEY_REGISTRY', () => {
  it('has unique names and patterns, and documents every row', () => {
    expect(new Set(KEY_REGISTRY.map((e) => e.name)).size).toBe(KEY_REGISTRY.length);
    expect(new Set(KEY_REGISTRY.map((e) => e.pattern)).size).toBe(KEY_REGISTRY.length);
    for (const entry of KEY_REGISTRY) {
      const notes = KEY_NOTES[entry.name];
      expect(notes.allowedPayload.length, entry.name).toBeGreaterThan(0);
      expect(notes.forbiddenPayload.length, entry.name).toBeGreaterThan(0);
      expect(notes.ttl, entry.name).not.toBe('');
      expect(notes.auditCounterpart, entry.name).not.toBe('');
      expect(notes.cleanup, entry.name).not.toBe('');
      expect(entry.pattern, entry.name).toContain(`:${entry.domain}:${entry.purpose}:`);
      // Lowercase words and hyphens: nothing that could open another segment or a hash tag.
      expect(`${entry.domain}:${entry.purpose}`, entry.name).toMatch(/^[a-z][a-z-]*:[a-z][a-z-]*$/);
    }
    expect(Object.keys(KEY_NOTES).sort()).toEqual(KEY_REGISTRY.map((e) => e.name).sort());
  });

  it('records the fixed TTLs of the runtime policy', () => {
    expect(registryEntry('inviteObject').ttl.seconds).toBe(10_800);
    expect(registryEntry('inviteActiveByOrg').ttl.maxSeconds).toBe(10_800);
    expect(registryEntry('inviteActiveByEmailHash').ttl.maxSeconds).toBe(10_800);
    expect(registryEntry('syrveRuntimeTokenRefreshLock').ttl.seconds).toBe(15);
    expect(registryEntry('mfaChallenge').ttl.seconds).toBe(300);
    expect(registryEntry('authSessionState').ttl.seconds).toBe(300);
    expect(registryEntry('mfaTotpUsed').ttl.maxSeconds).toBe(120);
    expect(registryEntry('jobCache').ttl.seconds).toBe(120);
    expect(registryEntry('tenantResolveSlug').ttl.seconds).toBe(60);
    expect(registryEntry('tenantResolveDomain').ttl.seconds).toBe(60);
    expect(registryEntry('tenantResolveDomainMisses').ttl.maxSeconds).toBe(10);
    expect(registryEntry('orgSettingsCache').ttl.seconds).toBe(300);
    expect(registryEntry('orgCacheGeneration').ttl.seconds).toBeGreaterThan(300);
    expect(registryEntry('revokedSession').ttl.varies).toBe(true);
    expect(KEY_NOTES.revokedSession.ttl).toMatch(/remaining/i);
    expect(KEY_NOTES.revokedJti.ttl).toMatch(/remaining/i);
  });

  it('records value types', () => {
    expect(registryEntry('inviteObject').valueType).toBe('json');
    expect(registryEntry('inviteActiveByOrg').valueType).toBe('sorted-set');
    expect(registryEntry('syrveRuntimeTokenRefreshLock').valueType).toBe('string');
    expect(registryEntry('throttleCounter').valueType).toBe('counter');
    expect(registryEntry('revokedSession').valueType).toBe('marker');
    expect(registryEntry('revokedJti').valueType).toBe('marker');
  });

  it('explains why the email index hash is keyed', () => {
    expect(KEY_NOTES.inviteActiveByEmailHash.notes).toMatch(/INDEX_HASH_KEY/);
    expect(KEY_NOTES.inviteActiveByEmailHash.forbiddenPayload).toContain('raw email');
  });

  it('matches every builder output with exactly one entry, its own', () => {
    for (const testCase of BUILDER_CASES) {
      fc.assert(
        fc.property(keyPrefix, keyEnv, testCase.valid, (prefix, env, args) => {
          const key = testCase.call(createKeyspace({ prefix, env }), args);
          expect(matchingRegistryEntries(key).map((e) => e.name)).toEqual([testCase.name]);
          expect(findRegistryEntry(key, { prefix, env })?.name).toBe(testCase.name);
        }),
        { numRuns: 50 },
      );
    }
  });

  it('matches nothing that a builder would refuse', () => {
    fc.assert(
      fc.property(hostileString, (key) => {
        expect(matchingRegistryEntries(key)).toEqual([]);
      }),
    );
    const good = keyspace.inviteObject(ORG, OTHER);
    for (const bad of [
      good.toUpperCase(),
      `${good}:x`,
      `${good} `,
      good.replace('{', ''),
      good.replace(`{${ORG}}`, ORG),
      good.replace(':prod:', ':production:'),
      good.replace('mhpay', 'Mhpay'),
      // The org index repeats the scope's org id; another id is not that index.
      keyspace.inviteActiveByOrg(ORG).replace(new RegExp(`${ORG}$`), OTHER),
      keyspace.revokedSession(ORG).replace(':platform:{denylist}:', `:org:{${ORG}}:`),
      // A denylist key outside its tag (as written before the tag) is no denylist key.
      keyspace.revokedSession(ORG).replace(':platform:{denylist}:', ':platform:'),
      keyspace.mfaChallenge(ORG, OTHER).replace(':user:', ':org:'),
    ]) {
      expect(matchingRegistryEntries(bad), bad).toEqual([]);
    }
  });

  it('knows the data-only rows by their keys, though nothing builds them', () => {
    expect(findRegistryEntry('mhpay:prod:platform:ref:plan-statuses:all')?.name).toBe('refPlanStatuses');
    expect(findRegistryEntry('mhpay:prod:platform:sys:health:last-check')?.name).toBe('sysHealthLastCheck');
    for (const entry of KEY_REGISTRY.filter((e) => e.dataOnly === true)) {
      expect(KEY_NOTES[entry.name].notes, entry.name).toMatch(/^Data only, no builder/);
      expect(entry.name in keyspace, entry.name).toBe(false);
    }
  });

  it('keeps the resolve cache and its limiter under one hash tag, and a slug apart from a domain', () => {
    const hash = 'a'.repeat(64) as never;
    const tagged = [
      keyspace.tenantResolveSlug(hash),
      keyspace.tenantResolveDomain(hash),
      keyspace.tenantResolveSlugMisses(),
      keyspace.tenantResolveDomainMisses(),
      keyspace.throttleCounter({ kind: 'platform', tag: 'tenant-resolve' }, 'tenant-resolve', hash, 60),
    ];
    for (const key of tagged) expect(key.match(/\{[^}]*\}/g), key).toEqual(['{tenant-resolve}']);
    expect(keyspace.tenantResolveSlug(hash)).not.toBe(keyspace.tenantResolveDomain(hash));
    expect(keyspace.throttleCounter({ kind: 'platform' }, 'tenant-resolve', hash, 60)).not.toContain('{');
    // The tag is an allow-list: no caller-chosen hash tag.
    expect(() => keyspace.throttleCounter({ kind: 'platform', tag: 'other' as never }, 'login', hash, 60)).toThrow();
  });

  it('restricts matches to a namespace when one is given', () => {
    const key = keyspace.inviteObject(ORG, OTHER);
    expect(findRegistryEntry(key, { prefix: 'mhpay', env: 'prod' })?.name).toBe('inviteObject');
    expect(findRegistryEntry(key, { prefix: 'mhpay', env: 'staging' })).toBeUndefined();
    expect(findRegistryEntry(key, { prefix: 'other', env: 'prod' })).toBeUndefined();
  });
});

describe('auditKey', () => {
  it('names the entry of a healthy key and finds nothing wrong', () => {
    const audit = auditKey(keyspace.inviteObject(ORG, OTHER), 10_800);
    expect(audit.entry?.name).toBe('inviteObject');
    expect(audit.findings).toEqual([]);
  });

  it('flags a key without TTL (-1) and a key gone between SCAN and TTL (-2)', () => {
    expect(auditKey(keyspace.throttleCounter({ kind: 'platform' }, 'login', 'a'.repeat(64) as never, 60), -1)).toMatchObject({
      entry: { name: 'throttleCounter' },
      findings: ['no-ttl'],
    });
    expect(auditKey(keyspace.revokedSession(ORG), -2).findings).toEqual(['gone']);
  });

  it('flags a TTL above the fixed or maximum TTL of the entry', () => {
    expect(auditKey(keyspace.inviteObject(ORG, OTHER), 10_801).findings).toEqual(['ttl-above-max']);
    expect(auditKey(keyspace.inviteActiveByOrg(ORG), 10_801).findings).toEqual(['ttl-above-max']);
    expect(auditKey(keyspace.inviteActiveByOrg(ORG), 42).findings).toEqual([]);
    expect(auditKey(keyspace.syrveRuntimeTokenRefreshLock(ORG, OTHER), 16).findings).toEqual(['ttl-above-max']);
    expect(auditKey(keyspace.mfaChallenge(ORG, OTHER), 300).findings).toEqual([]);
    expect(auditKey(keyspace.jobCache({ kind: 'org', id: ORG }, OTHER), 121).findings).toEqual(['ttl-above-max']);
    // No fixed bound: only a missing TTL is a finding.
    expect(auditKey(keyspace.activeContext(ORG, OTHER), 10_000_000).findings).toEqual([]);
  });

  it('flags keys that match no entry, and over-long keys', () => {
    const unknown = auditKey('mhpay:prod:tenant-resolve:slug:acme', 60);
    expect(unknown.entry).toBeUndefined();
    expect(unknown.findings).toEqual(['unregistered']);
    expect(auditKey('x'.repeat(250), -1).findings).toEqual(['unregistered', 'too-long', 'no-ttl']);
    expect(auditKey(keyspace.inviteObject(ORG, OTHER), 100, { prefix: 'mhpay', env: 'dev' }).findings).toEqual(['unregistered']);
  });

  it('never echoes the key it audits', () => {
    const key = 'mhpay:prod:discovery:someone@example.com';
    expect(JSON.stringify(auditKey(key, -1))).not.toContain('someone');
  });
});
