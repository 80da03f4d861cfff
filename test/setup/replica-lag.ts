// The `lag` run: after test/setup/global.ts, every stack's REST proxy answers reads from a replica that applies the
// primary's writes REPLICA_LAG_MS late, as an Upstash Global database's read region does (docs/design/replicas.md).
import 'vitest';
import type { TestProject } from 'vitest/node';

// Above what Upstash's read regions usually lag, below the revocation check's 800 ms deadline (lib/redis/store.ts),
// which a read-your-writes read spends waiting for the replica.
const REPLICA_LAG_MS = 150;

export function setup(project: TestProject): void {
  project.provide('replicaLagMs', REPLICA_LAG_MS);
}
