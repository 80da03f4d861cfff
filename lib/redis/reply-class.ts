// The one list of Redis error replies that mean "the store cannot serve now" (docs/design/failure-semantics.md#redis-error-replies).
// Every other error reply is a defect of ours (a script error, WRONGTYPE, a syntax error, an unknown command): it
// answers 500 and never opens a fail-open throttle, where a store that cannot serve keeps each route's fail-open or
// fail-closed rule, as a store that does not answer does.

/**
 * Each entry matches a reply that starts with it, followed by the end or a character that is not a letter, digit or
 * underscore: `BUSY` is not `BUSYKEY` (a RESTORE onto an existing key, a defect).
 */
export const CANNOT_SERVE_NOW_REPLIES = [
  // Redis itself.
  'LOADING', // loading its dataset after a restart
  'READONLY', // a replica, or a primary a failover demoted, refusing a write
  'BUSY', // a script or function running past its time limit
  'MASTERDOWN', // a replica that lost its primary, with replica-serve-stale-data off
  'CLUSTERDOWN', // a cluster with slots unserved
  'TRYAGAIN', // a multi-key command during a slot migration
  'OOM', // maxmemory reached under noeviction (docs/design/redis.md#eviction)
  // Upstash's quota and rate answers.
  'ERR max daily request limit exceeded',
  'ERR max requests limit exceeded',
  'ERR max concurrent connections exceeded',
  'ERR DB capacity quota exceeded',
  // The local Upstash-compatible proxy (local/emulators/upstash): Redis unreachable behind it, and its injected
  // command fault, which stands for a store failing that command.
  'ERR the proxy could not reach Redis',
  'ERR injected fault',
] as const;

export type ReplyClass = 'cannot-serve-now' | 'defect';

export function replyClass(reply: string): ReplyClass {
  return CANNOT_SERVE_NOW_REPLIES.some((prefix) => reply.startsWith(prefix) && !/^\w/.test(reply.slice(prefix.length)))
    ? 'cannot-serve-now'
    : 'defect';
}

/** The first word of a reply (`WRONGTYPE`, `ERR`): what may be logged of it, since the rest can quote keys or values. */
export function replyCode(reply: string): string {
  return /^[A-Z][A-Z_-]*/.exec(reply)?.[0] ?? 'unknown';
}

/**
 * The error reply an @upstash/redis throw carries, or undefined when the store did not answer (network, deadline, a
 * body that is no JSON: a gateway's page). The client throws `UpstashError` with the reply as its message, with
 * `, command was: …` after it for a non-2xx answer, and with `Command failed: ` or `Command N [ NAME ] failed: ` before
 * it for a pipeline's item (node_modules/@upstash/redis, pkg/http.ts and pkg/pipeline.ts).
 */
export function errorReplyOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'UpstashError') return undefined;
  return error.message.replace(/^Command(?: \d+ \[ [^\]]* \])? failed: /, '');
}
