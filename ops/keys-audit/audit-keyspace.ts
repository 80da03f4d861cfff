// Walks a live keyspace with SCAN at a bounded rate and audits each key against its definition: TTL, type, value, leaks.
import { auditKey, KEY_REGISTRY, type KeyName, type RegistryEntry } from '../../lib/keys/index.ts';
import type { KeyNamespace } from '../../lib/keys/namespace.ts';
import { evictionPolicyFromInfo, evictionProblem, type EvictionPolicy, type StoreRole } from '../../lib/redis/eviction.ts';
import type { ReadCommand, ReadOnlyRedis, Reply } from './read-only-redis.ts';
import { keyLeaks, redactKey, type KeyLeak } from './secrets-in-keys.ts';
import { redisTypeOf, stringValueProblem, valueCheckFor, zsetValueProblem } from './value-checks.ts';

export type FindingKind =
  | 'unregistered'
  | 'no-ttl'
  | 'ttl-above-max'
  | 'too-long'
  | 'wrong-type'
  | 'bad-value'
  | 'value-too-large'
  | 'unreadable'
  | 'eviction-policy'
  | KeyLeak;

/** The key of a finding about the whole store (its eviction policy), not one key. */
export const STORE_FINDING_KEY = '(the store)';

export interface Finding {
  kind: FindingKind;
  /** The registry row, or undefined for a key that matches none. */
  row: KeyName | undefined;
  /** Redacted (secrets-in-keys.ts): never the key itself, which may hold the offending value. */
  key: string;
  /** What is wrong, in words that never quote a value. */
  detail?: string;
}

export interface RowCounts {
  keys: number;
  noTtl: number;
  ttlAboveMax: number;
  wrongType: number;
  badValue: number;
}

export interface AuditReport {
  match: string;
  keys: number;
  /** Keys that expired between SCAN and PTTL: not a finding. */
  vanished: number;
  seconds: number;
  rows: Record<KeyName, RowCounts>;
  unregistered: number;
  /** Which store this is, and its `maxmemory-policy` (INFO memory), `unknown` when it does not say. */
  eviction: { store: StoreRole; policy: EvictionPolicy };
  findings: Finding[];
}

export interface AuditOptions {
  /** The main store or the denylist's (`--store`); both must not evict (lib/redis/eviction.ts). */
  store: StoreRole;
  /** Keys of this prefix and env only (MATCH `<prefix>:<env>:*`); undefined: every key of any namespace (`--all`). */
  namespace: KeyNamespace | undefined;
  /** SCAN's COUNT hint. */
  count: number;
  /** Keys per second, at most, over the whole run. */
  rate: number;
  /** Strings longer than this are not read (STRLEN first); sorted sets are read this many members at most. */
  maxValueBytes: number;
  maxMembers: number;
  /** For tests: how to wait (defaults to a timer). */
  sleep?: (ms: number) => Promise<void>;
}

const emptyCounts = (): RowCounts => ({ keys: 0, noTtl: 0, ttlAboveMax: 0, wrongType: 0, badValue: 0 });

export async function auditKeyspace(redis: ReadOnlyRedis, options: AuditOptions): Promise<AuditReport> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const match = options.namespace === undefined ? '*' : `${options.namespace.prefix}:${options.namespace.env}:*`;
  const rows = Object.fromEntries(KEY_REGISTRY.map((entry) => [entry.name, emptyCounts()])) as Record<KeyName, RowCounts>;
  const report: AuditReport = {
    match,
    keys: 0,
    vanished: 0,
    seconds: 0,
    rows,
    unregistered: 0,
    eviction: { store: options.store, policy: await evictionPolicyOf(redis) },
    findings: [],
  };
  const problem = evictionProblem(options.store, report.eviction.policy);
  if (problem !== undefined) report.findings.push({ kind: 'eviction-policy', row: undefined, key: STORE_FINDING_KEY, detail: problem });
  const started = Date.now();
  let cursor = '0';
  do {
    // Paced before each batch: the keys so far may not have come faster than the rate allows.
    const due = started + (report.keys / options.rate) * 1000;
    if (Date.now() < due) await sleep(due - Date.now());
    const [scan] = await redis.pipeline([['scan', cursor, 'MATCH', match, 'COUNT', String(options.count)]]);
    if (scan === undefined || !scan.ok) throw new Error(`SCAN failed: ${scan?.ok === false ? scan.error : 'no reply'}`);
    const [next, keys] = scan.value as [string, string[]];
    cursor = String(next);
    await auditBatch(redis, keys, options, report);
  } while (cursor !== '0');
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/**
 * A refused INFO (an ACL user without it, a REST endpoint that forbids it, even by failing the whole request) is
 * `unknown`, not a finding; a store that cannot be reached at all fails the SCAN that comes next, which says so.
 */
async function evictionPolicyOf(redis: ReadOnlyRedis): Promise<EvictionPolicy> {
  try {
    const [info] = await redis.pipeline([['info', 'memory']]);
    return info?.ok === true ? evictionPolicyFromInfo(info.value) : 'unknown';
  } catch {
    return 'unknown';
  }
}

async function auditBatch(redis: ReadOnlyRedis, keys: string[], options: AuditOptions, report: AuditReport): Promise<void> {
  if (keys.length === 0) return;
  const meta = await redis.pipeline(
    keys.flatMap((key): ReadCommand[] => [
      ['type', key],
      ['pttl', key],
    ]),
  );
  const strings: Array<{ key: string; entry: RegistryEntry }> = [];
  const zsets: Array<{ key: string; entry: RegistryEntry }> = [];
  keys.forEach((key, index) => {
    const type = text(meta[2 * index]);
    const pttl = Number(text(meta[2 * index + 1]));
    report.keys += 1;
    if (type === 'none' || pttl === -2) {
      report.vanished += 1;
      return;
    }
    const audit = auditKey(key, pttl < 0 ? pttl : Math.ceil(pttl / 1000), options.namespace);
    const entry = audit.entry;
    const counts = entry === undefined ? undefined : report.rows[entry.name];
    if (counts !== undefined) counts.keys += 1;
    else report.unregistered += 1;
    const add = (kind: FindingKind, detail?: string) =>
      report.findings.push({ kind, row: entry?.name, key: redactKey(key), ...(detail !== undefined ? { detail } : {}) });
    for (const finding of audit.findings) {
      if (finding === 'gone') continue;
      if (finding === 'no-ttl' && counts !== undefined) counts.noTtl += 1;
      if (finding === 'ttl-above-max' && counts !== undefined) counts.ttlAboveMax += 1;
      add(finding, finding === 'ttl-above-max' ? `TTL ${Math.ceil(pttl / 1000)} s` : undefined);
    }
    for (const leak of keyLeaks(key)) add(leak);
    if (entry === undefined || counts === undefined) return;
    if (type !== redisTypeOf(entry)) {
      counts.wrongType += 1;
      add('wrong-type', `a ${type}, the row holds a ${redisTypeOf(entry)}`);
    } else (type === 'zset' ? zsets : strings).push({ key, entry });
  });
  await checkStrings(redis, strings, options, report);
  await checkZsets(redis, zsets, options, report);
}

async function checkStrings(
  redis: ReadOnlyRedis,
  items: Array<{ key: string; entry: RegistryEntry }>,
  options: AuditOptions,
  report: AuditReport,
): Promise<void> {
  if (items.length === 0) return;
  const lengths = await redis.pipeline(items.map(({ key }): ReadCommand => ['strlen', key]));
  const readable = items.filter(({ key, entry }, index) => {
    if (Number(text(lengths[index])) <= options.maxValueBytes) return true;
    bad(report, 'value-too-large', entry, key, `over ${options.maxValueBytes} bytes, not read`);
    return false;
  });
  if (readable.length === 0) return;
  const values = await redis.pipeline(readable.map(({ key }): ReadCommand => ['get', key]));
  readable.forEach(({ key, entry }, index) => {
    const reply = values[index];
    // Gone since TYPE: expired in between, not a finding.
    if (reply?.ok === true && reply.value === null) return;
    if (reply === undefined || !reply.ok)
      return bad(report, 'unreadable', entry, key, reply?.ok === false ? firstWord(reply.error) : undefined);
    const problem = stringValueProblem(valueCheckFor(entry), String(reply.value));
    if (problem !== undefined) bad(report, 'bad-value', entry, key, problem);
  });
}

async function checkZsets(
  redis: ReadOnlyRedis,
  items: Array<{ key: string; entry: RegistryEntry }>,
  options: AuditOptions,
  report: AuditReport,
): Promise<void> {
  if (items.length === 0) return;
  // A bounded page: the first members by score are enough to tell a set of ours from a stranger's.
  const pages = await redis.pipeline(
    items.map(({ key }): ReadCommand => ['zrange', key, '0', String(options.maxMembers - 1), 'WITHSCORES']),
  );
  items.forEach(({ key, entry }, index) => {
    const reply = pages[index];
    if (reply === undefined || !reply.ok)
      return bad(report, 'unreadable', entry, key, reply?.ok === false ? firstWord(reply.error) : undefined);
    const flat = (reply.value as unknown[]).map(String);
    const problem = zsetValueProblem(valueCheckFor(entry), flat);
    if (problem !== undefined) bad(report, 'bad-value', entry, key, problem);
  });
}

function bad(report: AuditReport, kind: FindingKind, entry: RegistryEntry, key: string, detail?: string): void {
  if (kind === 'bad-value' || kind === 'value-too-large') report.rows[entry.name].badValue += 1;
  report.findings.push({ kind, row: entry.name, key: redactKey(key), ...(detail !== undefined ? { detail } : {}) });
}

function text(reply: Reply | undefined): string {
  return reply?.ok === true ? String(reply.value) : '';
}

/** An error's code word (WRONGTYPE, NOPERM): the rest of a message may quote the command. */
function firstWord(message: string): string {
  return message.split(' ')[0] ?? 'error';
}
