// Vitest projects: `unit` needs no services; `integration`, `workers`, `lambda` and `browser` (the console in
// headless Chromium) each get a throwaway redis-server and a fresh PostgreSQL database from the global setup, which
// fails (never skips) when one is missing; `lag` runs some of them again with a lagging read replica, `cluster` on a
// Redis Cluster.
import { defineConfig } from 'vitest/config';

const withServices = ['test/setup/global.ts'];

// The Redis-facing contract files, run a second time through the REST proxy in front of a real 3-master Redis Cluster
// (test/setup/cluster.ts): every command and script must keep to one slot. Files that start, stop or flush a Redis of
// their own, or talk to Redis without the proxy, are not here; test/cluster/ holds the cluster's own self-check.
export const throughCluster = [
  'test/cluster/**/*.test.ts',
  'test/integration/access.test.ts',
  'test/integration/api-keys.test.ts',
  'test/integration/api-key-auth.test.ts',
  'test/integration/active-context.test.ts',
  'test/integration/audit-export{,-list}.test.ts',
  'test/integration/console.test.ts',
  'test/integration/cron-invite-cleanup.test.ts',
  'test/integration/cron-run.test.ts',
  'test/integration/cron-syrve-housekeeping.test.ts',
  // invites-fairness counts one server's INFO commandstats, which a cluster spreads over three.
  'test/integration/invites.test.ts',
  'test/integration/invites-{concurrency,faults,grant-guards,interleavings,limits,outcomes}.test.ts',
  'test/integration/members-*.test.ts',
  'test/integration/mfa.test.ts',
  'test/integration/mfa-recovery.test.ts',
  'test/integration/oidc.test.ts',
  'test/integration/password-reset.test.ts',
  'test/integration/passkeys.test.ts',
  'test/integration/rate-limits{,-outsiders}.test.ts',
  'test/integration/revocation-beside-rbac.test.ts',
  'test/integration/sessions-revoke*.test.ts',
  'test/integration/sign-in*.test.ts',
  'test/integration/single-use.test.ts',
  'test/integration/sso-handoff.test.ts',
  'test/integration/syrve-*.test.ts',
  'test/integration/tenant-*.test.ts',
  'test/integration/password-reset-epoch.test.ts',
  'test/integration/throttle-ip.test.ts',
];

// The invite, sign-in, revocation and Syrve contracts, run again with every stack's REST proxy answering reads from a
// replica 150 ms behind its Redis (test/setup/replica-lag.ts, docs/design/replicas.md): what the app reads right
// after its own writes must hold through a Global database's read region. The essential files only, to keep it short.
const throughLaggingReplica = [
  'test/integration/invites.test.ts',
  'test/integration/invites-register.test.ts',
  'test/integration/sign-in.test.ts',
  'test/integration/sessions-revoke.test.ts',
  'test/integration/syrve-sessions.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Integration files each start their own proxies; two cores, so keep parallelism modest.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: withServices } },
      {
        extends: true,
        test: { name: 'lag', include: throughLaggingReplica, globalSetup: [...withServices, 'test/setup/replica-lag.ts'] },
      },
      { extends: true, test: { name: 'cluster', include: throughCluster, globalSetup: ['test/setup/cluster.ts'] } },
      { extends: true, test: { name: 'workers', include: ['test/workers/**/*.test.ts'], globalSetup: withServices } },
      { extends: true, test: { name: 'lambda', include: ['test/lambda/**/*.test.ts'], globalSetup: withServices } },
      // The browser project also makes sure a Chromium is there (installs Debian's as root), so npm test needs no step first.
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: [...withServices, 'test/browser/support/chromium-setup.ts'],
        },
      },
    ],
  },
});
