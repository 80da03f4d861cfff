// The Syrve/iiko connection function: create, list, test, stores, runtime state, disable and enable (OrganizationAdmin of the organisation).
import type { Context } from 'hono';
import { defineFunction } from '../../lib/auth/define-function.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import type { Principal } from '../../lib/auth/claims.ts';
import { errors } from '../../lib/http/app-error.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';
import { syrve } from '../../lib/runtime/syrve/index.ts';
import type { SyrveConnection } from '../../lib/runtime/syrve/connection.ts';
import type { UseOutcome } from '../../lib/runtime/syrve/use-connection.ts';
import {
  createConnectionRoute,
  disableConnectionRoute,
  enableConnectionRoute,
  listConnectionsRoute,
  listStoresRoute,
  runtimeStateRoute,
  testConnectionRoute,
} from './routes.ts';

export const syrveFunction = defineFunction({ prefix: '/orgs/:orgId/syrve/connections', auth: 'bearer' });

syrveFunction.openapi(createConnectionRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const body = c.req.valid('json');
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await syrve.create(deps, {
    organizationId,
    ...body,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'bad-base-url') throw errors.VALIDATION_FAILED(`baseUrl: ${outcome.problem}`);
    throw errors.CONNECTION_EXISTS();
  }
  return c.json({ connection: outcome.connection }, 201);
});

syrveFunction.openapi(listConnectionsRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  return c.json({ connections: await syrve.list(deps, organizationId) }, 200);
});

syrveFunction.openapi(testConnectionRoute, async (c) => {
  const { connection } = await adminAndConnection(c, c.req.valid('param'));
  if (!connection.enabled) throw errors.CONNECTION_DISABLED();
  const result = await syrve.test(c.get('deps'), connection, c.get('correlationId'));
  return c.json({ test: result.test, session: result.session }, 200);
});

syrveFunction.openapi(listStoresRoute, async (c) => {
  const { connection } = await adminAndConnection(c, c.req.valid('param'));
  const outcome = await syrve.stores(c.get('deps'), connection, c.get('correlationId'));
  if (!outcome.ok) throw outcomeError(outcome);
  return c.json({ stores: outcome.value, session: outcome.session }, 200);
});

syrveFunction.openapi(runtimeStateRoute, async (c) => {
  const { connection } = await adminAndConnection(c, c.req.valid('param'));
  return c.json(await syrve.runtime(c.get('deps'), connection), 200);
});

syrveFunction.openapi(disableConnectionRoute, async (c) => {
  const { principal, connection } = await adminAndConnection(c, c.req.valid('param'));
  await syrve.setEnabled(c.get('deps'), {
    connection,
    enabled: false,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  return c.body(null, 204);
});

syrveFunction.openapi(enableConnectionRoute, async (c) => {
  const { principal, connection } = await adminAndConnection(c, c.req.valid('param'));
  await syrve.setEnabled(c.get('deps'), {
    connection,
    enabled: true,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  return c.body(null, 204);
});

/**
 * The role check and the connection read run side by side for a caller bound to this organisation (a session's `org`
 * claim, or one of its keys); the role's answer comes first, so a caller without the role learns nothing about which
 * connections exist. A token without the claim may name any organisation, so its read waits for the role check: a
 * caller it refuses costs no statement but that one (docs/design/limits.md#outsiders-spend-nothing).
 */
async function adminAndConnection(
  c: Context<HonoEnv>,
  params: { orgId: string; connectionId: string },
): Promise<{ principal: Principal; connection: SyrveConnection }> {
  const deps = c.get('deps');
  const auth = c.get('auth');
  const ref = { organizationId: params.orgId, connectionId: params.connectionId };
  const beside = auth.claimedOrganizationId === ref.organizationId ? syrve.load(deps, ref) : undefined;
  beside?.catch(() => undefined);
  const principal = await authorizeOrgAdmin(deps.db, auth, { organizationId: ref.organizationId });
  const connection = await (beside ?? syrve.load(deps, ref));
  if (connection === undefined) throw errors.NOT_FOUND('no such connection in this organisation');
  return { principal, connection };
}

function outcomeError(outcome: Exclude<UseOutcome<unknown>, { ok: true }>): Error {
  switch (outcome.reason) {
    case 'disabled':
      return errors.CONNECTION_DISABLED();
    case 'credentials-changed':
      return errors.CONNECTION_CHANGED();
    case 'lock-timeout':
      return errors.UPSTREAM_BUSY(1);
    case 'circuit-open':
      return errors.UPSTREAM_FAILED({ syrve: 'reconnects exhausted; the connection waits for its cooldown, a rotation or re-enable' });
    case 'reconnect-exhausted':
      return errors.UPSTREAM_FAILED({ syrve: 'the upstream refused 7 reconnects' });
    case 'login-refused':
      return errors.UPSTREAM_FAILED({ syrve: 'the upstream refused the login' });
    case 'upstream-failed':
      return errors.UPSTREAM_FAILED({ syrve: 'the upstream did not answer as expected' });
  }
}
