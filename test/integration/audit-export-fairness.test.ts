// Audit exports take turns between organisations: the worker claims the oldest claimable job of the organisation it
// served least recently, so one organisation's queue of long exports does not hold up another's; two runs claiming
// at once still never take the same job. Its own database: the claim takes jobs of any organisation.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from 'uuidv7';
import { claimNextExport, releaseJob, type ClaimedJob } from '../../lib/runtime/jobs/claim-job.ts';
import { createScratchDatabase, DEFAULT_DATABASE_URL, type ScratchDatabase } from '../../local/processes/scratch-database.ts';
import { startStack, type TestStack } from '../support/stack.ts';

let database: ScratchDatabase;
let stack: TestStack;
beforeAll(async () => {
  database = await createScratchDatabase(process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_DATABASE_URL, 'test');
  stack = await startStack({ databaseUrl: database.url });
});
afterAll(async () => {
  await stack?.close();
  await database?.drop();
});
afterEach(async () => {
  await stack.db.query(`UPDATE jobs SET state = 'cancelled', claim_id = NULL, lease_until = NULL WHERE state IN ('queued', 'running')`);
  await stack.db.query('DELETE FROM job_claim_turns');
});

type Org = Awaited<ReturnType<TestStack['seedOrganization']>>;

/** Queues one export through the route, as a user does; returns its job id. */
async function queue(org: Org): Promise<string> {
  const response = await stack.request('POST', `/orgs/${org.organizationId}/audit/exports`, { token: org.adminToken });
  expect(response.status).toBe(202);
  return ((await response.json()) as { job: { jobId: string } }).job.jobId;
}

const claim = (): Promise<ClaimedJob | undefined> => claimNextExport(stack.deps, uuidv7());

/** Claims one job after another (each kept claimed, as a run working it would) and names each one's organisation. */
async function claimInTurn(count: number, names: Map<string, string>): Promise<string[]> {
  const order: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const claimed = await claim();
    expect(claimed).toBeDefined();
    order.push(names.get(claimed!.row.organization_id)!);
  }
  return order;
}

describe('taking turns between organisations', () => {
  it("A queues 3 exports, then B queues 1: B's job is claimed second, not fourth; A's follow in their own order", async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    const aJobs = [await queue(a), await queue(a), await queue(a)];
    const bJob = await queue(b);
    const claimed: string[] = [];
    for (let i = 0; i < 4; i += 1) claimed.push((await claim())!.row.id);
    expect(claimed).toEqual([aJobs[0], bJob, aJobs[1], aJobs[2]]);
    expect(await claim()).toBeUndefined();
  });

  it('three organisations are served round-robin, each in the order its jobs were queued', async () => {
    const [a, b, c] = [await stack.seedOrganization(), await stack.seedOrganization(), await stack.seedOrganization()];
    for (const org of [a, a, a, b, b, c]) await queue(org);
    const names = new Map([
      [a.organizationId, 'A'],
      [b.organizationId, 'B'],
      [c.organizationId, 'C'],
    ]);
    expect(await claimInTurn(6, names)).toEqual(['A', 'B', 'C', 'A', 'B', 'A']);
  });

  it("a job handed back at the end of a run's budget waits for the other organisation's turn, though it is older", async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    const aJob = await queue(a);
    const bJob = await queue(b);
    const first = (await claim())!;
    expect(first.row.id).toBe(aJob);
    await releaseJob(stack.deps, { jobId: first.row.id, claimId: first.claimId });
    expect((await claim())!.row.id).toBe(bJob);
    // Resumed next, from where it stopped: still one claim per job.
    expect((await claim())!.row.id).toBe(aJob);
    expect(await claim()).toBeUndefined();
  });

  it('an organisation served before, long ago, goes before one served just now, whoever queued first', async () => {
    const a = await stack.seedOrganization();
    const b = await stack.seedOrganization();
    await stack.db.query(
      `INSERT INTO job_claim_turns (organization_id, kind, last_claimed_at) VALUES ($1, 'audit-export', now()), ($2, 'audit-export', now() - interval '1 hour')`,
      [a.organizationId, b.organizationId],
    );
    const aJob = await queue(a);
    const bJob = await queue(b);
    expect((await claim())!.row.id).toBe(bJob);
    expect((await claim())!.row.id).toBe(aJob);
  });
});

describe('claims at once', () => {
  it('eight claims at once over six queued jobs take six different jobs, each once, and two find none', async () => {
    const orgs = [await stack.seedOrganization(), await stack.seedOrganization(), await stack.seedOrganization()];
    const queued = new Set<string>();
    for (const org of [...orgs, ...orgs]) queued.add(await queue(org));
    const results = await Promise.all(Array.from({ length: 8 }, () => claim()));
    const ids = results.flatMap((result) => (result === undefined ? [] : [result.row.id]));
    expect(ids.length).toBe(6);
    expect(new Set(ids)).toEqual(queued);
    const rows = await stack.db.query(`SELECT count(DISTINCT claim_id)::int AS claims FROM jobs WHERE state = 'running'`);
    expect(rows.rows[0].claims).toBe(6);
  });
});
