// Invite lists beside an organisation that holds 50 000 live invites: another tenant's list under the big one's paging, and the big one's own page.
import { invites } from '../../lib/runtime/invites/index.ts';
import { seedInvitesDirectly } from '../../local/stack/bulk-invites.ts';
import { startListNeighbour } from '../../local/stack/list-neighbour.ts';
import { expectStatus, type BenchCall, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';
import { mapConcurrently } from '../concurrently.ts';

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

export const listBesideBigOrgBench: OperationBench = {
  name: 'invites.list.beside-50k',
  describe: `GET /orgs/{orgId}/invites (${LISTED} live invites) while another organisation holding ${BIG_ORG_INVITES} pages through its own list`,
  async prepare(stack) {
    const big = await bigOrganization(stack);
    const org = await stack.seedOrganization();
    await mapConcurrently(LISTED, 8, async (i) => {
      const outcome = await invites.create(stack.deps, {
        organizationId: org.organizationId,
        locationId: null,
        email: `beside-${i}@example.test`,
        roleCode: 'Viewer',
        createdByUserId: org.adminId,
        correlationId: 'bench-setup',
      });
      if (!outcome.ok) throw new Error(`bench setup: invites.create refused (${outcome.reason})`);
    });
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
