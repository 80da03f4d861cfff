// Operation benches of the invitation function, each call a real HTTP request to the app (auth, RBAC, Redis script, audit).
import { uuidv7 } from 'uuidv7';
import { INVITE_MAX_ACTIVE_PER_ORG } from '../../lib/config/index.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/index.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS, type BenchStack } from '../stack.ts';

/** Live invites in the organisation the list bench reads. */
export const LIST_SIZE = 100;
const SETUP_CONCURRENCY = 8;
/** Invites made per organisation: under the per-organisation create throttle and the active cap, so setup is never refused. */
const PER_ORG = Math.min(THROTTLE_LIMITS['invite-create'].limit, INVITE_MAX_ACTIVE_PER_ORG) - 20;

type Organization = Awaited<ReturnType<BenchStack['seedOrganization']>>;
type Created = { org: Organization; invite: { inviteId: string }; token: string };

/** Fresh invites made through the runtime operation itself (untimed), one per future call, spread over as many organisations as the limits need. */
async function createInvites(stack: BenchStack, emails: string[], first?: Organization): Promise<Created[]> {
  const orgs: Organization[] = first === undefined ? [] : [first];
  while (orgs.length * PER_ORG < emails.length) orgs.push(await stack.seedOrganization());
  return mapConcurrently(emails.length, SETUP_CONCURRENCY, async (i) => {
    const org = orgs[Math.floor(i / PER_ORG)] as Organization;
    const outcome = await invites.create(stack.deps, {
      organizationId: org.organizationId,
      locationId: org.locationId,
      email: emails[i] as string,
      roleCode: 'Accountant',
      createdByUserId: org.adminId,
      correlationId: 'bench-setup',
    });
    if (!outcome.ok) throw new Error(`bench setup: invites.create refused (${outcome.reason})`);
    return { org, invite: outcome.invite, token: outcome.token };
  });
}

const inviteeEmail = (userId: string) => `invitee-${userId.slice(-12)}@example.test`;

export const createInviteBench: OperationBench = {
  name: 'invites.create',
  describe:
    'POST /orgs/{orgId}/invites with a location (auth, RBAC + location check, one script with the throttle hit and the cap, audit row)',
  async prepare(stack, count) {
    // A fresh organisation every PER_ORG calls, so the run measures creates, not the throttle's 429.
    const orgs: Organization[] = [];
    while (orgs.length * PER_ORG < count) orgs.push(await stack.seedOrganization());
    return async (i) => {
      const org = orgs[Math.floor(i / PER_ORG)] as Organization;
      const body = { email: `person-${i}@example.test`, roleCode: 'Accountant', locationId: org.locationId };
      const path = `/orgs/${org.organizationId}/invites`;
      await expectStatus('invites.create', await stack.request('POST', path, { token: org.adminToken, body }), 201);
    };
  },
};

export const listInvitesBench: OperationBench = {
  name: 'invites.list',
  describe: `GET /orgs/{orgId}/invites with ${LIST_SIZE} live invites in the organisation`,
  async prepare(stack) {
    const org = await stack.seedOrganization();
    await createInvites(
      stack,
      Array.from({ length: LIST_SIZE }, (_, i) => `listed-${i}@example.test`),
      org,
    );
    const path = `/orgs/${org.organizationId}/invites`;
    return async (i) => {
      const response = await stack.request('GET', path, { token: org.adminToken });
      if (i > 0) return expectStatus('invites.list', response, 200);
      // The first call proves the figures are for a full list, not an empty or failing one.
      const listed = response.status === 200 ? ((await response.json()) as { invites: unknown[] }).invites.length : -1;
      if (listed !== LIST_SIZE) throw new Error(`invites.list: expected ${LIST_SIZE} invites, got ${listed} (HTTP ${response.status})`);
    };
  },
};

export const cancelInviteBench: OperationBench = {
  name: 'invites.cancel',
  describe: 'DELETE /orgs/{orgId}/invites/{inviteId} of a fresh invite (auth, RBAC, one script, audit row)',
  async prepare(stack, count) {
    const created = await createInvites(
      stack,
      Array.from({ length: count }, (_, i) => `cancelled-${i}@example.test`),
    );
    return async (i) => {
      const { org, invite } = created[i] as Created;
      const path = `/orgs/${org.organizationId}/invites/${invite.inviteId}`;
      await expectStatus('invites.cancel', await stack.request('DELETE', path, { token: org.adminToken }), 204);
    };
  },
};

export const acceptInviteBench: OperationBench = {
  name: 'invites.accept',
  describe: 'POST /invites/accept of a fresh invite by its invitee (auth, one script, role grant + audit in one transaction)',
  async prepare(stack, count) {
    const userIds = Array.from({ length: count }, () => uuidv7());
    const created = await createInvites(stack, userIds.map(inviteeEmail));
    const bearers = await mapConcurrently(count, SETUP_CONCURRENCY, (i) => {
      const userId = userIds[i] as string;
      return stack.token({ userId, email: inviteeEmail(userId), expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
    });
    return async (i) => {
      const body = { token: (created[i] as { token: string }).token };
      await expectStatus('invites.accept', await stack.request('POST', '/invites/accept', { token: bearers[i] as string, body }), 200);
    };
  },
};

export const inviteBenches: OperationBench[] = [createInviteBench, listInvitesBench, cancelInviteBench, acceptInviteBench];
