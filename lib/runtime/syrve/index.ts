// syrve: Syrve/iiko RMS connections in PostgreSQL (sealed credentials) and their one shared runtime session in Redis.
import { createConnection } from './create-connection.ts';
import { listConnections } from './list-connections.ts';
import { loadConnection } from './connection.ts';
import { readRuntimeState } from './read-runtime-state.ts';
import { resetSession } from './reset-session.ts';
import { rotateCredentials } from './rotate-credentials.ts';
import { setEnabled } from './set-enabled.ts';
import { listStores, testConnection } from './use-connection.ts';

export const syrve = {
  create: createConnection,
  list: listConnections,
  load: loadConnection,
  stores: listStores,
  test: testConnection,
  runtime: readRuntimeState,
  setEnabled,
  resetSession,
  rotate: rotateCredentials,
};
export { connectionSchema } from './connection.ts';
export { TAKE_REFRESH_LOCK } from './acquire-session.ts';
export { syrveHousekeepingTask } from './housekeeping.ts';
