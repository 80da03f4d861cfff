// Route definitions (OpenAPI) of the audit export function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import { csvFile, exportListResponse, jobParams, jobResponse, listExportsQuery } from './schemas.ts';

export const createExportRoute = defineRoute({
  method: 'post',
  path: '/',
  scope: 'exports:write',
  summary: "Export the organisation's audit events as CSV, in the background (OrganizationAdmin)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'EXPORT_LIMIT_REACHED', 'STORE_UNAVAILABLE'],
  responses: { 202: { description: 'queued', ...jsonContent(jobResponse) } },
});

export const listExportsRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'exports:read',
  summary: "The organisation's audit exports, newest first, with their state, progress and who asked (OrganizationAdmin)",
  request: { params: orgParams, query: listExportsQuery },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'one page of exports', ...jsonContent(exportListResponse) } },
});

export const readExportRoute = defineRoute({
  method: 'get',
  path: '/{jobId}',
  scope: 'exports:read',
  summary: "An export's state and progress: from the cache while it runs, else from its row (OrganizationAdmin)",
  request: { params: jobParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the job', ...jsonContent(jobResponse) } },
});

export const cancelExportRoute = defineRoute({
  method: 'delete',
  path: '/{jobId}',
  scope: 'exports:write',
  summary: 'Cancel an unfinished export (OrganizationAdmin)',
  request: { params: jobParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'EXPORT_FINISHED', 'STORE_UNAVAILABLE'],
  responses: { 204: { description: 'cancelled' } },
});

export const exportFileRoute = defineRoute({
  method: 'get',
  path: '/{jobId}/file',
  scope: 'exports:read',
  summary: "A finished export's CSV file (OrganizationAdmin)",
  request: { params: jobParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'NOT_FOUND', 'EXPORT_NOT_READY', 'STORE_UNAVAILABLE'],
  responses: {
    200: { description: 'the file, as an attachment', content: { 'text/csv': { schema: csvFile } } },
  },
});
