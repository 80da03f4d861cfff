// The export worker's claim beside 1 000 organisations each at the cap of 3 queued exports, and GET /healthz.
import { uuidv7 } from 'uuidv7';
import { claimNextExport, releaseJob } from '../../lib/runtime/jobs/claim-job.ts';
import { expectStatus, type OperationBench } from '../operation.ts';

const ORGANIZATIONS = 1_000;
const QUEUED_EACH = 3;

export const jobsClaimBench: OperationBench = {
  name: 'jobs.claim.3000-queued',
  describe: `one export claim (the turn-taking statement) and its hand-back, with ${ORGANIZATIONS} organisations × ${QUEUED_EACH} queued exports`,
  async prepare(stack) {
    const org = await stack.seedOrganization();
    // Written straight in: the organisations and their queued jobs are only what the claim has to rank.
    const seeded = await stack.db.query<{ id: string }>(
      `INSERT INTO organizations (id, name) SELECT gen_random_uuid(), 'bench claim ' || g FROM generate_series(1, $1::int) g RETURNING id`,
      [ORGANIZATIONS],
    );
    const ids = seeded.rows.map((row) => row.id);
    await stack.db.query(
      `INSERT INTO jobs (id, organization_id, kind, state, requested_by_user_id, correlation_id, until_occurred_at, rows_total, created_at)
       SELECT gen_random_uuid(), o, 'audit-export', 'queued', $2, 'bench', now(), 0, now() - random() * interval '1 hour'
         FROM unnest($1::uuid[]) o, generate_series(1, $3::int)`,
      [ids, org.adminId, QUEUED_EACH],
    );
    await stack.db.query('ANALYZE jobs');
    const call = Object.assign(
      async () => {
        // The hand-back keeps the queue as it was: every call ranks the same 3 000 jobs, and the turns rotate.
        const claimed = await claimNextExport(stack.deps, uuidv7());
        if (claimed === undefined) throw new Error('jobs.claim: nothing claimed');
        await releaseJob(stack.deps, { jobId: claimed.row.id, claimId: claimed.claimId });
      },
      {
        finish: async () => {
          await stack.db.query(
            `UPDATE jobs SET state = 'cancelled', claim_id = NULL, lease_until = NULL WHERE organization_id = ANY($1::uuid[])`,
            [ids],
          );
        },
      },
    );
    return call;
  },
};

export const healthBench: OperationBench = {
  name: 'health',
  describe:
    "GET /healthz: the isolate's result of at most 1 s ago, else PING and INFO memory to each Redis store and SELECT 1 on PostgreSQL",
  async prepare(stack) {
    return async () => {
      await expectStatus('health', await stack.request('GET', '/healthz'), 200);
    };
  },
};
