// Route definitions (OpenAPI) of the audit export function.
import { createRoute } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import { csvFile, jobParams, jobResponse } from './schemas.ts';

export const createExportRoute = createRoute({
  method: 'post',
  path: '/orgs/{orgId}/audit/exports',
  summary: "Export the organisation's audit events as CSV, in the background (OrganizationAdmin)",
  security: bearerSecurity,
  request: { params: orgParams },
  responses: { 202: { description: 'queued', ...jsonContent(jobResponse) }, ...errorResponses(400, 401, 403, 409, 503) },
});

export const readExportRoute = createRoute({
  method: 'get',
  path: '/orgs/{orgId}/audit/exports/{jobId}',
  summary: "An export's state and progress: from the cache while it runs, else from its row (OrganizationAdmin)",
  security: bearerSecurity,
  request: { params: jobParams },
  responses: { 200: { description: 'the job', ...jsonContent(jobResponse) }, ...errorResponses(400, 401, 403, 404, 503) },
});

export const cancelExportRoute = createRoute({
  method: 'delete',
  path: '/orgs/{orgId}/audit/exports/{jobId}',
  summary: 'Cancel an unfinished export (OrganizationAdmin)',
  security: bearerSecurity,
  request: { params: jobParams },
  responses: { 204: { description: 'cancelled' }, ...errorResponses(400, 401, 403, 404, 409, 503) },
});

export const exportFileRoute = createRoute({
  method: 'get',
  path: '/orgs/{orgId}/audit/exports/{jobId}/file',
  summary: "A finished export's CSV file (OrganizationAdmin)",
  security: bearerSecurity,
  request: { params: jobParams },
  responses: {
    200: { description: 'the file, as an attachment', content: { 'text/csv': { schema: csvFile } } },
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});
