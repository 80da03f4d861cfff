// Route definitions (OpenAPI) of the sign-in policy function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent, orgParams } from '../../lib/http/route-schemas.ts';
import { policyResponse, putPolicyBody } from './schemas.ts';

export const getPolicyRoute = defineRoute({
  method: 'get',
  path: '/',
  scope: 'settings:read',
  summary: "The organisation's sign-in policy: the methods its members may sign in with, and whether MFA is required (OrganizationAdmin)",
  request: { params: orgParams },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the policy', ...jsonContent(policyResponse) } },
});

export const putPolicyRoute = defineRoute({
  method: 'put',
  path: '/',
  summary: 'Replace the sign-in policy (OrganizationAdmin); new sign-ins follow it at once, sessions already open go on until they end',
  request: { params: orgParams, body: jsonBody(putPolicyBody) },
  errors: ['FORBIDDEN', 'TENANT_SUSPENDED', 'SIGN_IN_POLICY_LOCKOUT', 'STORE_UNAVAILABLE'],
  responses: { 200: { description: 'the policy now in force', ...jsonContent(policyResponse) } },
});
