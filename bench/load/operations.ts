// One load call per kind of request in the mix (bench/mix.ts): a real HTTP request to the app, its answer checked.
import { uuidv7 } from 'uuidv7';
import { TEST_CLIENT_IP_HEADER, type ComposedApp } from '../../local/stack/app.ts';
import type { TokenClaims } from '../../local/stack/tokens.ts';
import type { MixName } from '../mix.ts';
import { BENCH_TOKEN_TTL_SECONDS } from '../stack.ts';
import { expectAnswer, PoolEmpty } from './failure.ts';
import type { LoadPools } from './pools.ts';
import type { LoadOrganization } from './tenants.ts';

/** What a load call works with: its app instance, a token minter, and the population it draws from. */
export interface LoadContext {
  request: ComposedApp['request'];
  token(claims: TokenClaims): Promise<string>;
  pools: LoadPools;
  organizations: Map<string, LoadOrganization>;
  /** Each organisation's Syrve connection. */
  connections: Map<string, string>;
  password: string;
}

export type LoadOperation = (context: LoadContext) => Promise<void>;

const fromAddress = (pools: LoadPools) => ({ [TEST_CLIENT_IP_HEADER]: pools.address() });
const asAdmin = (org: LoadOrganization) => ({ token: org.adminToken });

export const LOAD_OPERATIONS: Record<MixName, LoadOperation> = {
  async 'auth.context.get'({ request, pools }) {
    await expectAnswer(await request('GET', '/auth/context', { token: pools.readingSession().token }), 200);
  },

  async 'syrve.stores'({ request, pools, connections }) {
    const org = pools.organization();
    const path = `/orgs/${org.organizationId}/syrve/connections/${connections.get(org.organizationId) ?? ''}/stores`;
    await expectAnswer(await request('GET', path, asAdmin(org)), 200);
  },

  async resolve({ request, pools }) {
    const path = `/public/tenants/resolve?slug=${pools.organization().slug}`;
    await expectAnswer(await request('GET', path, { headers: fromAddress(pools) }), 200);
  },

  async 'auth.refresh'({ request, pools }) {
    const session = pools.takeRefreshable();
    if (session === undefined) throw new PoolEmpty('no session free to refresh');
    const body = { refreshToken: session.refreshToken };
    const answer = await expectAnswer(await request('POST', '/auth/refresh', { body, headers: fromAddress(pools) }), 200);
    // A failed refresh leaves the chain out of the pool: its token may be spent.
    pools.giveRefreshable({ ...session, refreshToken: (JSON.parse(answer) as { refreshToken: string }).refreshToken });
  },

  async 'invites.list'({ request, pools }) {
    const org = pools.organization();
    await expectAnswer(await request('GET', `/orgs/${org.organizationId}/invites`, asAdmin(org)), 200);
  },

  async 'members.list'({ request, pools }) {
    const org = pools.organization();
    await expectAnswer(await request('GET', `/orgs/${org.organizationId}/members?limit=50`, asAdmin(org)), 200);
  },

  async 'sessions.list'({ request, pools }) {
    await expectAnswer(await request('GET', '/auth/sessions', { token: pools.readingSession().token }), 200);
  },

  async 'invites.create'({ request, pools }) {
    const org = pools.organization();
    const inviteeUserId = uuidv7();
    const inviteeEmail = `invitee-${inviteeUserId.slice(-12)}@example.test`;
    const body = { email: inviteeEmail, roleCode: 'Viewer', locationId: org.locationId };
    const answer = await expectAnswer(await request('POST', `/orgs/${org.organizationId}/invites`, { ...asAdmin(org), body }), 201);
    const created = JSON.parse(answer) as { invite: { inviteId: string }; token: string };
    pools.giveInvite({
      organizationId: org.organizationId,
      inviteId: created.invite.inviteId,
      token: created.token,
      inviteeUserId,
      inviteeEmail,
    });
  },

  async 'auth.login'({ request, pools, password }) {
    const member = pools.member();
    const body = { organizationId: member.organizationId, email: member.email, password };
    const answer = await expectAnswer(await request('POST', '/auth/login', { body, headers: fromAddress(pools) }), 200);
    const { accessToken, refreshToken } = JSON.parse(answer) as { accessToken: string; refreshToken: string };
    // The new session joins the refresh chains, as a client that signed in refreshes later.
    pools.giveRefreshable({ userId: member.userId, organizationId: member.organizationId, token: accessToken, refreshToken });
  },

  async 'invites.accept'({ request, pools, token: mint }) {
    const invite = pools.takeInvite();
    if (invite === undefined) throw new PoolEmpty('no invite held to accept');
    // The invitee's own bearer token, as their identity provider would give it (microseconds of HMAC).
    const token = await mint({
      userId: invite.inviteeUserId,
      email: invite.inviteeEmail,
      expiresInSeconds: BENCH_TOKEN_TTL_SECONDS,
    });
    await expectAnswer(await request('POST', '/invites/accept', { token, body: { token: invite.token } }), 200);
  },

  async 'invites.cancel'({ request, pools, organizations }) {
    const invite = pools.takeInvite();
    if (invite === undefined) throw new PoolEmpty('no invite held to cancel');
    const org = organizations.get(invite.organizationId) as LoadOrganization;
    await expectAnswer(await request('DELETE', `/orgs/${org.organizationId}/invites/${invite.inviteId}`, asAdmin(org)), 204);
  },
};
