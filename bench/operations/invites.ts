// Operation benches of the invitation function, each call a real HTTP request to the app (auth, RBAC, Redis script, audit).
import { uuidv7 } from 'uuidv7';
import { invites } from '../../lib/runtime/invites/index.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus, type OperationBench } from '../operation.ts';
import type { BenchStack } from '../stack.ts';

/** Live invites in the organisation the list bench reads. */
export const LIST_SIZE = 100;
const SETUP_CONCURRENCY = 8;

type Organization = Awaited<ReturnType<BenchStack['seedOrganization']>>;

/** Fresh invites made through the runtime operation itself (untimed), one per future call. */
function createInvites(stack: BenchStack, org: Organization, emails: string[]) {
  return mapConcurrently(emails.length, SETUP_CONCURRENCY, (i) =>
    invites.create(stack.deps, {
      organizationId: org.organizationId,
      locationId: org.locationId,
      email: emails[i] as string,
      roleCode: 'Accountant',
      createdByUserId: org.adminId,
      correlationId: 'bench-setup',
    }),
  );
}

const inviteeEmail = (userId: string) => `invitee-${userId.slice(-12)}@example.test`;

export const createInviteBench: OperationBench = {
  name: 'invites.create',
  describe: 'POST /orgs/{orgId}/invites with a location (auth, RBAC + location check, one script, audit row)',
  async prepare(stack) {
    const org = await stack.seedOrganization();
    const path = `/orgs/${org.organizationId}/invites`;
    return async (i) => {
      const body = { email: `person-${i}@example.test`, roleCode: 'Accountant', locationId: org.locationId };
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
      org,
      Array.from({ length: LIST_SIZE }, (_, i) => `listed-${i}@example.test`),
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
    const org = await stack.seedOrganization();
    const created = await createInvites(
      stack,
      org,
      Array.from({ length: count }, (_, i) => `cancelled-${i}@example.test`),
    );
    const paths = created.map(({ invite }) => `/orgs/${org.organizationId}/invites/${invite.inviteId}`);
    return async (i) => {
      await expectStatus('invites.cancel', await stack.request('DELETE', paths[i] as string, { token: org.adminToken }), 204);
    };
  },
};

export const acceptInviteBench: OperationBench = {
  name: 'invites.accept',
  describe: 'POST /invites/accept of a fresh invite by its invitee (auth, one script, role grant + audit in one transaction)',
  async prepare(stack, count) {
    const org = await stack.seedOrganization();
    const userIds = Array.from({ length: count }, () => uuidv7());
    const created = await createInvites(stack, org, userIds.map(inviteeEmail));
    const bearers = await mapConcurrently(count, SETUP_CONCURRENCY, (i) => {
      const userId = userIds[i] as string;
      return stack.token({ userId, email: inviteeEmail(userId), expiresInSeconds: 3_600 });
    });
    return async (i) => {
      const body = { token: (created[i] as { token: string }).token };
      await expectStatus('invites.accept', await stack.request('POST', '/invites/accept', { token: bearers[i] as string, body }), 200);
    };
  },
};

export const inviteBenches: OperationBench[] = [createInviteBench, listInvitesBench, cancelInviteBench, acceptInviteBench];
