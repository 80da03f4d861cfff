// Matches live keys against the registry: which entry a key belongs to, and what is wrong with it.
// `npm run keys:audit` (ops/keys-audit.ts) runs it over a live keyspace; the registry tests call it too.
import { KEY_REGISTRY, type RegistryEntry } from './registry.ts';
import type { KeyNamespace } from './namespace.ts';
import { MAX_KEY_LENGTH } from './keyspace.ts';

/**
 * `unregistered`: matches no entry (or belongs to another prefix/env when a namespace is given);
 * `no-ttl`: TTL -1, a key that would live forever; `gone`: TTL -2, the key vanished between SCAN and TTL;
 * `ttl-above-max`: longer than the entry's fixed or maximum TTL; `too-long`: 200 characters or more.
 */
type KeyAuditFinding = 'unregistered' | 'no-ttl' | 'gone' | 'ttl-above-max' | 'too-long';

export interface KeyAudit {
  /** The matching registry entry, if any. The key itself is not echoed: an unregistered key may hold anything. */
  entry: RegistryEntry | undefined;
  findings: KeyAuditFinding[];
}

/** Every entry whose matcher accepts `key` (the registry is built so this is at most one). */
export function matchingRegistryEntries(key: string, namespace?: KeyNamespace): RegistryEntry[] {
  return KEY_REGISTRY.filter((entry) => {
    const match = entry.matcher.exec(key);
    if (match === null) return false;
    return namespace === undefined || (match.groups?.prefix === namespace.prefix && match.groups?.env === namespace.env);
  });
}

export function findRegistryEntry(key: string, namespace?: KeyNamespace): RegistryEntry | undefined {
  return matchingRegistryEntries(key, namespace)[0];
}

/** Audits one live key given its `TTL` reply (seconds; -1 no expiry, -2 missing). */
export function auditKey(key: string, ttlSeconds: number, namespace?: KeyNamespace): KeyAudit {
  const entry = findRegistryEntry(key, namespace);
  const findings: KeyAuditFinding[] = [];
  if (entry === undefined) findings.push('unregistered');
  if (key.length >= MAX_KEY_LENGTH) findings.push('too-long');
  if (ttlSeconds === -2) findings.push('gone');
  else if (ttlSeconds === -1) findings.push('no-ttl');
  else if (entry !== undefined) {
    const limit = entry.ttl.seconds ?? entry.ttl.maxSeconds;
    if (limit !== undefined && ttlSeconds > limit) findings.push('ttl-above-max');
  }
  return { entry, findings };
}
