// Invite lists beside an organisation that holds 50 000 live invites: another tenant's list under the big one's paging,
// the big one's own page, and the fairness figure (another tenant's p99 beside the paging ÷ its p99 alone, target ≤ 2).
import { invites } from '../../lib/runtime/invites/index.ts';
import { seedInvitesDirectly } from '../../local/stack/bulk-invites.ts';
import { startListNeighbour } from '../../local/stack/list-neighbour.ts';
import { expectStatus, type BenchCall, type FigureBench, type OperationBench } from '../operation.ts';
import { startBenchStack, type BenchStack } from '../stack.ts';
import { mapConcurrently } from '../concurrently.ts';
import { percentile } from '../runner.ts';

export const BIG_ORG_INVITES = 50_000;
const LISTED = 100;

type Organization = Awaited<ReturnType<BenchStack['seedOrganization']>>;

/** The 50 000-invite organisation, written once per run straight into Redis with the app's key builders. */
const bigOrgs = new WeakMap<BenchStack, Promise<Organization>>();
function bigOrganization(stack: BenchStack): Promise<Organization> {
  let org = bigOrgs.get(stack);
  if (org === undefined) {
    org = (async () => {
      const seeded = await stack.seedOrganization();
      await seedInvitesDirectly(stack.redis, stack.deps, {
        organizationId: seeded.organizationId,
        createdByUserId: seeded.adminId,
        count: BIG_ORG_INVITES,
      });
      return seeded;
    })();
    bigOrgs.set(stack, org);
  }
  return org;
}

/** `n` live invites of a fresh organisation, made through the operation (not written straight into Redis). */
async function organizationWithInvites(stack: BenchStack, n: number, label: string): Promise<Organization> {
  const org = await stack.seedOrganization();
  await mapConcurrently(n, 8, async (i) => {
    const outcome = await invites.create(stack.deps, {
      organizationId: org.organizationId,
      locationId: null,
      email: `${label}-${i}@example.test`,
      roleCode: 'Viewer',
      createdByUserId: org.adminId,
      correlationId: 'bench-setup',
    });
    if (!outcome.ok) throw new Error(`bench setup: invites.create refused (${outcome.reason})`);
  });
  return org;
}

export const listBesideBigOrgBench: OperationBench = {
  name: 'invites.list.beside-50k',
  describe: `GET /orgs/{orgId}/invites (${LISTED} live invites) while another organisation holding ${BIG_ORG_INVITES} pages through its own list`,
  async prepare(stack) {
    const big = await bigOrganization(stack);
    const org = await organizationWithInvites(stack, LISTED, 'beside');
    const neighbour = startListNeighbour({ redisUrl: stack.redisUrl, keys: stack.deps.keys, organizationId: big.organizationId });
    await neighbour.start();
    const path = `/orgs/${org.organizationId}/invites`;
    const call: BenchCall = async () => {
      const response = await stack.request('GET', path, { token: org.adminToken });
      await expectStatus('invites.list.beside-50k', response, 200);
    };
    call.finish = async () => {
      await neighbour.stop();
      await neighbour.close();
    };
    return call;
  },
};

export const bigOrgPageBench: OperationBench = {
  name: 'invites.list.page-of-50k',
  describe: `GET /orgs/{orgId}/invites of the organisation holding ${BIG_ORG_INVITES}: its first page of ${LISTED}`,
  async prepare(stack) {
    const big = await bigOrganization(stack);
    const path = `/orgs/${big.organizationId}/invites`;
    return async (i) => {
      const response = await stack.request('GET', path, { token: big.adminToken });
      if (i > 0) return expectStatus('invites.list.page-of-50k', response, 200);
      // The first call proves the figures are for a full page with more behind it.
      const body = response.status === 200 ? ((await response.json()) as { invites: unknown[]; nextCursor: string | null }) : undefined;
      if (body?.invites.length !== LISTED || body.nextCursor === null) {
        throw new Error(`invites.list.page-of-50k: expected a full page and a cursor (HTTP ${response.status})`);
      }
    };
  },
};

const FAIRNESS_LISTED = 20;
const FAIRNESS_ROUNDS = 15;
const FAIRNESS_CALLS_PER_ROUND = 20;

export const invitesFairnessBench: FigureBench = {
  name: 'invites.fairness',
  describe:
    `GET /orgs/{orgId}/invites (${FAIRNESS_LISTED} live invites), ${FAIRNESS_ROUNDS} rounds of ${FAIRNESS_CALLS_PER_ROUND} calls ` +
    `one at a time alone, then ${FAIRNESS_CALLS_PER_ROUND} while an organisation holding ${BIG_ORG_INVITES} pages through its ` +
    `own list (interleaved, so a busy machine weighs on both alike): p99 of each, p99Ratio = beside ÷ alone (target ≤ 2), ` +
    `neighbourPages walked meanwhile.`,
  async measure(teardown) {
    const stack = await startBenchStack(teardown);
    const big = await bigOrganization(stack);
    const small = await organizationWithInvites(stack, FAIRNESS_LISTED, 'fairness');
    const path = `/orgs/${small.organizationId}/invites`;
    const timedLists = async (n: number, into: number[]) => {
      for (let i = 0; i < n; i += 1) {
        const started = performance.now();
        const response = await stack.request('GET', path, { token: small.adminToken });
        await expectStatus('invites.fairness', response, 200);
        into.push(performance.now() - started);
      }
    };
    await timedLists(FAIRNESS_CALLS_PER_ROUND, []);
    const alone: number[] = [];
    const beside: number[] = [];
    let neighbourPages = 0;
    const neighbour = startListNeighbour({ redisUrl: stack.redisUrl, keys: stack.deps.keys, organizationId: big.organizationId });
    try {
      for (let round = 0; round < FAIRNESS_ROUNDS; round += 1) {
        await timedLists(FAIRNESS_CALLS_PER_ROUND, alone);
        await neighbour.start();
        await timedLists(FAIRNESS_CALLS_PER_ROUND, beside);
        neighbourPages = await neighbour.stop();
      }
    } finally {
      await neighbour.close();
    }
    const p99 = (samples: number[]) => percentile(Float64Array.from(samples).sort(), 99);
    const round = (n: number) => Math.round(n * 100) / 100;
    return [
      {
        name: 'invites.fairness',
        figures: {
          aloneP99Ms: round(p99(alone)),
          besideP99Ms: round(p99(beside)),
          p99Ratio: round(p99(beside) / p99(alone)),
          neighbourPages,
        },
      },
    ];
  },
};
