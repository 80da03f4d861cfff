// The public surface of lib/pg: HTTP queries and batches, the interactive pool, migrations, audit.
export { createDb } from './db.ts';
export type { Db, PgConnectionConfig, Statement } from './db.ts';
export { createPool } from './pool.ts';
export type { CreatePoolOptions } from './pool.ts';
export { applyMigrations, migrationFileName } from './migrate.ts';
export type { Migration, MigrationClient } from './migrate.ts';
export { migrationChecksum } from './checksum.ts';
export { AUDIT_ACTIONS, auditEventSchema, auditStatement, InvalidAuditEventError, writeAudit } from './audit.ts';
export type { AuditAction, AuditEvent } from './audit.ts';
