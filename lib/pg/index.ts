// The public surface of lib/pg: HTTP queries and batches, the interactive pool, migrations, audit.
export { createDb } from './db.ts';
export type { Db } from './db.ts';
export { createPool } from './pool.ts';
export { applyMigrations } from './migrate.ts';
export type { Migration } from './migrate.ts';
export { AUDIT_ACTIONS, auditStatement, InvalidAuditEventError, writeAudit } from './audit.ts';
export type { AuditEvent } from './audit.ts';
