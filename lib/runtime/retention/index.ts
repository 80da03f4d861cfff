// retention: the scheduled deletion of what PostgreSQL keeps only for a while (ended sessions, webhook ids, ended webhook deliveries and events, finished exports).
export { retentionTask, RETENTION_BATCH, RETENTION_PHASES, WEBHOOK_DELIVERY_RETENTION_MS } from './retention-task.ts';
