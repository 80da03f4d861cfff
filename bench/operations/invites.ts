// Operation benches of the invitation function, each call a real HTTP request to the app (auth, RBAC, Redis script, audit).
import { uuidv7 } from 'uuidv7';
import { INVITE_MAX_ACTIVE_PER_ORG } from '../../lib/config/index.ts';
import { invites } from '../../lib/runtime/invites/index.ts';
import { THROTTLE_LIMITS } from '../../lib/runtime/throttle/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
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

interface CreateOptions {
  first?: Organization;
  delivery?: 'email' | 'none';
  /** Invites per organisation; fewer than PER_ORG where the timed calls count in the create throttle too (resend). */
  perOrg?: number;
}

/** Fresh invites made through the runtime operation itself (untimed), one per future call, spread over as many organisations as the limits need. */
async function createInvites(stack: BenchStack, emails: string[], options: CreateOptions = {}): Promise<Created[]> {
  const perOrg = options.perOrg ?? PER_ORG;
  const orgs: Organization[] = options.first === undefined ? [] : [options.first];
  while (orgs.length * perOrg < emails.length) orgs.push(await stack.seedOrganization({ bound: true }));
  return mapConcurrently(emails.length, SETUP_CONCURRENCY, async (i) => {
    const org = orgs[Math.floor(i / perOrg)] as Organization;
    const outcome = await invites.create(stack.deps, {
      organizationId: org.organizationId,
      locationId: org.locationId,
      email: emails[i] as string,
      roleCode: 'Accountant',
      createdByUserId: org.adminId,
      correlationId: 'bench-setup',
      delivery: options.delivery ?? 'none',
    });
    if (!outcome.ok) throw new Error(`bench setup: invites.create refused (${outcome.reason})`);
    return { org, invite: outcome.invite, token: outcome.token };
  });
}

const inviteeEmail = (userId: string) => `invitee-${userId.slice(-12)}@example.test`;

export const createInviteBench: OperationBench = {
  name: 'invites.create',
  roundTrips: { redis: 2, revocation: 1, pg: 2 },
  describe:
    'POST /orgs/{orgId}/invites with a location (auth, RBAC + location check, one script with the throttle hit and the cap, audit row)',
  async prepare(stack, count) {
    // A fresh organisation every PER_ORG calls, so the run measures creates, not the throttle's 429.
    const orgs: Organization[] = [];
    while (orgs.length * PER_ORG < count) orgs.push(await stack.seedOrganization({ bound: true }));
    return async (i) => {
      const org = orgs[Math.floor(i / PER_ORG)] as Organization;
      const body = { email: `person-${i}@example.test`, roleCode: 'Accountant', locationId: org.locationId };
      const path = `/orgs/${org.organizationId}/invites`;
      await expectStatus('invites.create', await stack.request('POST', path, { token: org.adminToken, body }), 201);
    };
  },
};

export const createEmailedInviteBench: OperationBench = {
  name: 'invites.create.email',
  describe:
    'POST /orgs/{orgId}/invites with delivery "email": invites.create, then the message built and handed to the notifier before the answer (it says sent or failed)',
  async prepare(stack, count) {
    const orgs: Organization[] = [];
    while (orgs.length * PER_ORG < count) orgs.push(await stack.seedOrganization({ bound: true }));
    return async (i) => {
      const org = orgs[Math.floor(i / PER_ORG)] as Organization;
      const body = { email: `emailed-${i}@example.test`, roleCode: 'Accountant', locationId: org.locationId, delivery: 'email' };
      const path = `/orgs/${org.organizationId}/invites`;
      await expectStatus('invites.create.email', await stack.request('POST', path, { token: org.adminToken, body }), 201);
    };
  },
};

export const resendInviteBench: OperationBench = {
  name: 'invites.resend',
  describe:
    'POST /orgs/{orgId}/invites/{inviteId}/resend of a fresh invite (auth, RBAC, read + one script with both throttle hits, audit row, the send)',
  async prepare(stack, count) {
    // Each resend counts in the organisation's create throttle too: half the creates per organisation leave room for it.
    const perOrg = Math.floor(PER_ORG / 2);
    const created = await createInvites(
      stack,
      Array.from({ length: count }, (_, i) => `resent-${i}@example.test`),
      { delivery: 'email', perOrg },
    );
    return async (i) => {
      const { org, invite } = created[i] as Created;
      const path = `/orgs/${org.organizationId}/invites/${invite.inviteId}/resend`;
      await expectStatus('invites.resend', await stack.request('POST', path, { token: org.adminToken }), 200);
    };
  },
};

export const registerInviteBench: OperationBench = {
  name: 'invites.register',
  describe:
    'POST /invites/register of a fresh emailed invite (throttles + MGET, account read, the KDF, one script, one transaction, the session opened)',
  async prepare(stack, count) {
    const created = await createInvites(
      stack,
      Array.from({ length: count }, () => inviteeEmail(uuidv7())),
      { delivery: 'email' },
    );
    const password = `bench-${uuidv7()}`;
    return async (i) => {
      const body = { token: (created[i] as Created).token, password };
      // One address per call: the per-address sign-in throttle would otherwise refuse the run after 100 calls.
      const headers = { [TEST_CLIENT_IP_HEADER]: `127.5.${Math.floor(i / 250) % 250}.${i % 250}` };
      await expectStatus('invites.register', await stack.request('POST', '/invites/register', { body, headers }), 201);
    };
  },
};

export const listInvitesBench: OperationBench = {
  name: 'invites.list',
  roundTrips: { redis: 2, revocation: 1, pg: 1 },
  describe: `GET /orgs/{orgId}/invites with ${LIST_SIZE} live invites in the organisation`,
  async prepare(stack) {
    const org = await stack.seedOrganization({ bound: true });
    await createInvites(
      stack,
      Array.from({ length: LIST_SIZE }, (_, i) => `listed-${i}@example.test`),
      { first: org },
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
  roundTrips: { redis: 2, revocation: 1, pg: 2 },
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
  roundTrips: { redis: 2, revocation: 1, pg: 1 },
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

export const inviteBenches: OperationBench[] = [
  createInviteBench,
  createEmailedInviteBench,
  listInvitesBench,
  cancelInviteBench,
  acceptInviteBench,
  resendInviteBench,
  registerInviteBench,
];
