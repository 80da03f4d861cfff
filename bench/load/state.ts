// The load mode's runtime state, made through the real operations before the counted run: signed-in sessions with an
// active context, live invites, and one Syrve connection per organisation with its upstream session cached.
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { uuidv7 } from 'uuidv7';
import { invites } from '../../lib/runtime/invites/index.ts';
import { syrve } from '../../lib/runtime/syrve/index.ts';
import { TEST_CLIENT_IP_HEADER } from '../../local/stack/app.ts';
import { seedInvitesDirectly } from '../../local/stack/bulk-invites.ts';
import { mapConcurrently } from '../concurrently.ts';
import { expectStatus } from '../operation.ts';
import { BENCH_TOKEN_TTL_SECONDS, type BenchStack } from '../stack.ts';
import type { LoadMember, LoadOrganization, LoadTenants } from './tenants.ts';

/** A signed-in member: a bearer token of the session (outliving the run) and the refresh token its next refresh spends. */
export interface SignedIn {
  userId: string;
  organizationId: string;
  token: string;
  refreshToken: string;
}

/** An invite whose token the bench holds, so a load call can accept it (as its invitee) or cancel it (as the admin). */
export interface HeldInvite {
  organizationId: string;
  inviteId: string;
  token: string;
  inviteeUserId: string;
  inviteeEmail: string;
}

export interface LoadState {
  sessions: SignedIn[];
  heldInvites: HeldInvite[];
  /** The Syrve connection of each organisation, by organisation id. */
  connections: Map<string, string>;
  bulkInvites: number;
}

export interface StateSizes {
  sessions: number;
  bulkInvitesPerOrganization: number;
  heldInvites: number;
}

// Sign-ins run the KDF: a few at a time is what two cores take. Everything else is a handful of round trips.
const SIGN_IN_CONCURRENCY = 4;
const CONCURRENCY = 16;

/**
 * A set-up request again while it answers 503 (a store's deadline missed on a crowded machine), up to four times:
 * seeding is not what is measured, and one missed deadline must not end a run. Sign-ins are not retried (their
 * throttle counts each try), and no other status is.
 */
async function settingUp(send: () => Promise<Response>): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await send();
    if (response.status !== 503 || attempt === 4) return response;
    await response.body?.cancel();
  }
}

const inviteeEmail = (userId: string) => `invitee-${userId.slice(-12)}@example.test`;

/** A caller address per seeding call, apart from the load's own (bench/load/pools.ts), so no per-address limit is reached. */
const seedIp = (i: number) => `10.200.${(i >> 8) & 255}.${i & 255}`;

export async function seedState(stack: BenchStack, tenants: LoadTenants, sizes: StateSizes): Promise<LoadState> {
  const { organizations, members } = tenants;
  const byId = new Map(organizations.map((org) => [org.organizationId, org]));
  const admins = new Set(organizations.map((org) => org.adminId));
  const viewers = members.filter((member) => !admins.has(member.userId));
  const sessions = await mapConcurrently(sizes.sessions, SIGN_IN_CONCURRENCY, async (i) => {
    // Spread over the organisations: member i·step of the Viewers.
    const member = viewers[Math.floor((i * viewers.length) / sizes.sessions)] as LoadMember;
    return signIn(stack, member, tenants.password, byId.get(member.organizationId) as LoadOrganization, i);
  });

  for (const org of organizations) {
    await seedInvitesDirectly(stack.redis, stack.deps, {
      organizationId: org.organizationId,
      createdByUserId: org.adminId,
      count: sizes.bulkInvitesPerOrganization,
    });
  }
  const heldInvites = await mapConcurrently(sizes.heldInvites, CONCURRENCY, async (i) => {
    const org = organizations[i % organizations.length] as LoadOrganization;
    return createHeldInvite(stack, org);
  });

  const login = `load-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(16).toString('base64url');
  stack.syrveUpstream.setAccount(login, password);
  const connectionIds = await mapConcurrently(organizations.length, CONCURRENCY, async (i) => {
    const org = organizations[i] as LoadOrganization;
    const outcome = await syrve.create(stack.deps, {
      organizationId: org.organizationId,
      name: 'Main RMS',
      baseUrl: stack.syrveUpstream.url,
      login,
      password,
      actorUserId: org.adminId,
      correlationId: 'load-setup',
    });
    if (!outcome.ok) throw new Error(`load setup: syrve.create refused (${outcome.reason})`);
    // One stores call logs in and caches the upstream session, as the first request of the day would.
    const path = `/orgs/${org.organizationId}/syrve/connections/${outcome.connection.connectionId}/stores`;
    await expectStatus('load setup: syrve stores', await settingUp(() => stack.request('GET', path, { token: org.adminToken })), 200);
    return outcome.connection.connectionId;
  });
  const connections = new Map(organizations.map((org, i) => [org.organizationId, connectionIds[i] as string]));
  return { sessions, heldInvites, connections, bulkInvites: organizations.length * sizes.bulkInvitesPerOrganization };
}

async function signIn(stack: BenchStack, member: LoadMember, password: string, org: LoadOrganization, i: number): Promise<SignedIn> {
  const response = await stack.request('POST', '/auth/login', {
    body: { organizationId: member.organizationId, email: member.email, password },
    headers: { [TEST_CLIENT_IP_HEADER]: seedIp(i) },
  });
  const body = (await response.json()) as { accessToken?: string; refreshToken?: string };
  if (response.status !== 200 || body.accessToken === undefined || body.refreshToken === undefined)
    throw new Error(`load setup: a sign-in answered ${response.status}`);
  const sessionId = decodeJwt(body.accessToken).sid as string;
  // A token of the same session that outlives the run (sign-in's own lives 15 minutes).
  const token = await stack.token({ userId: member.userId, sessionId, email: member.email, expiresInSeconds: BENCH_TOKEN_TTL_SECONDS });
  const context = { organizationId: org.organizationId, locationId: org.locationId };
  await expectStatus(
    'load setup: active context',
    await settingUp(() => stack.request('PUT', '/auth/context', { token, body: context })),
    200,
  );
  return { userId: member.userId, organizationId: member.organizationId, token, refreshToken: body.refreshToken };
}

/** One invite through the runtime operation (its token kept), for a fresh invitee. */
async function createHeldInvite(stack: BenchStack, org: LoadOrganization): Promise<HeldInvite> {
  const inviteeUserId = uuidv7();
  const email = inviteeEmail(inviteeUserId);
  const outcome = await invites.create(stack.deps, {
    organizationId: org.organizationId,
    locationId: org.locationId,
    email,
    roleCode: 'Viewer',
    createdByUserId: org.adminId,
    correlationId: 'load-setup',
    delivery: 'none',
  });
  if (!outcome.ok) throw new Error(`load setup: invites.create refused (${outcome.reason})`);
  return {
    organizationId: org.organizationId,
    inviteId: outcome.invite.inviteId,
    token: outcome.token,
    inviteeUserId,
    inviteeEmail: email,
  };
}
