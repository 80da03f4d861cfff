// The audit export function: request an export, list them, follow its progress, download or cancel it (OrganizationAdmin of the organisation).
import { defineFunction } from '../../lib/auth/define-function.ts';
import { mayReadMembers } from '../../lib/auth/members/may-read-members.ts';
import { authorizeOrgAdmin } from '../../lib/auth/org-access.ts';
import { errors } from '../../lib/http/app-error.ts';
import { jobs } from '../../lib/runtime/jobs/index.ts';
import { cancelExportRoute, createExportRoute, exportFileRoute, listExportsRoute, readExportRoute } from './routes.ts';

export const auditExportsFunction = defineFunction({ prefix: '/orgs/:orgId/audit/exports', auth: 'bearer' });

auditExportsFunction.openapi(createExportRoute, async (c) => {
  const organizationId = c.req.valid('param').orgId;
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await jobs.createAuditExport(deps, {
    organizationId,
    requestedByUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) throw errors.EXPORT_LIMIT_REACHED(outcome.maxUnfinished);
  return c.json({ job: outcome.job }, 202);
});

auditExportsFunction.openapi(listExportsRoute, async (c) => {
  const { orgId: organizationId } = c.req.valid('param');
  const { limit, cursor } = c.req.valid('query');
  const deps = c.get('deps');
  const auth = c.get('auth');
  await authorizeOrgAdmin(deps.db, auth, { organizationId });
  const page = await jobs.listAuditExports(deps, {
    organizationId,
    limit,
    ...(cursor !== undefined ? { cursor } : {}),
    showEmails: mayReadMembers(auth),
  });
  if (!page.ok) throw errors.VALIDATION_FAILED('cursor: not a cursor this list handed out');
  return c.json({ exports: page.exports, nextCursor: page.nextCursor }, 200);
});

auditExportsFunction.openapi(readExportRoute, async (c) => {
  const { orgId: organizationId, jobId } = c.req.valid('param');
  const deps = c.get('deps');
  await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await jobs.readAuditExport(deps, { organizationId, jobId });
  if (!outcome.ok) throw errors.NOT_FOUND('no such export in this organisation');
  return c.json({ job: outcome.job }, 200);
});

auditExportsFunction.openapi(cancelExportRoute, async (c) => {
  const { orgId: organizationId, jobId } = c.req.valid('param');
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await jobs.cancelAuditExport(deps, {
    organizationId,
    jobId,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'finished') throw errors.EXPORT_FINISHED(outcome.state);
    throw errors.NOT_FOUND('no such export in this organisation');
  }
  return c.body(null, 204);
});

auditExportsFunction.openapi(exportFileRoute, async (c) => {
  const { orgId: organizationId, jobId } = c.req.valid('param');
  const deps = c.get('deps');
  const principal = await authorizeOrgAdmin(deps.db, c.get('auth'), { organizationId });
  const outcome = await jobs.openAuditExportFile(deps, {
    organizationId,
    jobId,
    actorUserId: principal.userId,
    actorApiKeyId: c.get('auth').apiKey?.apiKeyId,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'not-ready') throw errors.EXPORT_NOT_READY(outcome.state);
    throw errors.NOT_FOUND('no such export in this organisation');
  }
  return c.body(outcome.body, 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="audit-export-${jobId}.csv"`,
    'content-length': String(outcome.bytes),
    // The audit trail of a tenant: never kept by a shared cache, never sniffed into something else.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
});
