// Deadlines of PostgreSQL calls per kind, as one table: short enough that a compensation still fits inside the platform's limit.

/**
 * Each call names its kind; `dbCall` (unavailable.ts) aborts it at the deadline and answers 503.
 * read:         RBAC and tenant checks, outcome reads, health — read-only, on the way into a request (the RBAC read
 *               runs beside the revocation check); a suspended Neon compute wakes well inside it.
 * commit:       the one transaction that records a change with its audit row (create, cancel, accept, logout); the
 *               longest, because giving up on it leaves the outcome unknown and costs a compensation.
 * compensation: reads a compensation makes before it undoes something (is the invite finished meanwhile?) — it runs
 *               after a deadline already passed, so it gets the least time.
 * No retries: a commit whose reply was lost may have landed, and reads are cheaper to fail than to wait for.
 * The sums per route (docs/design/postgres.md#postgresql-deadlines) stay under 10 s with the Redis deadlines added (the Syrve
 * routes, which wait on an upstream, under Lambda's 29 s).
 */
export const PG_CALL_POLICY = {
  read: { timeoutMs: 1_500 },
  commit: { timeoutMs: 2_500 },
  compensation: { timeoutMs: 1_000 },
} as const;

export type PgCallKind = keyof typeof PG_CALL_POLICY;
