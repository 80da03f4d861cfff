// Every /orgs/{orgId} route of the OpenAPI document, walked with one token: how tests hold a rule for all of them (a
// suspended organisation, a deleted one), so a route added later cannot be forgotten.
import { uuidv7 } from 'uuidv7';
import { errorCode } from './sessions.ts';
import type { TestStack } from './stack.ts';

/**
 * A body each route with a required one accepts, so the walk reaches the role check (a 400 from validation would come
 * first). A route added with a body and no entry here fails the walk, and the entry is all it takes.
 */
const BODIES: Record<string, unknown> = {
  'POST /orgs/{orgId}/invites': { email: 'someone@example.test', roleCode: 'Viewer' },
  'POST /orgs/{orgId}/syrve/connections': { name: 'rms', baseUrl: 'http://127.0.0.1:9', login: 'api', password: 'secret-password' },
  'PATCH /orgs/{orgId}/branding': { displayName: 'Renamed' },
  'PUT /orgs/{orgId}/domains': { domains: [] },
  'PATCH /orgs/{orgId}/members/{userId}': { roleCode: 'Viewer' },
  'POST /orgs/{orgId}/webhook-endpoints': { url: 'http://127.0.0.1:9/hook', events: ['member.role_changed'] },
  'PATCH /orgs/{orgId}/webhook-endpoints/{endpointId}': { state: 'disabled' },
  'PUT /orgs/{orgId}/sign-in-policy': { requireMfa: false, allowedMethods: ['password', 'oidc', 'passkey'] },
};

interface OrgRoute {
  method: string;
  template: string;
  body: unknown;
}

/** Every operation of the OpenAPI document under /orgs/{orgId}, with a body for those that need one. */
export async function orgRoutes(stack: TestStack): Promise<OrgRoute[]> {
  const doc = (await (await stack.request('GET', '/openapi.json')).json()) as {
    paths: Record<string, Record<string, { requestBody?: { required?: boolean } }>>;
  };
  const routes: OrgRoute[] = [];
  for (const [template, operations] of Object.entries(doc.paths)) {
    if (!template.startsWith('/orgs/{orgId}')) continue;
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${template}`;
      if (operation.requestBody?.required === true && !(name in BODIES)) throw new Error(`no sample body for ${name}`);
      routes.push({ method: method.toUpperCase(), template, body: BODIES[name] });
    }
  }
  return routes;
}

/** Calls every /orgs route of `organizationId` with `token`; returns "METHOD path → status CODE" lines. */
export async function walkOrgRoutes(
  stack: TestStack,
  organizationId: string,
  token: string,
  ids: Record<string, string> = {},
): Promise<string[]> {
  const lines: string[] = [];
  for (const route of await orgRoutes(stack)) {
    const path = route.template.replace(/\{(\w+)\}/g, (_, name: string) =>
      // A {domain} is a hostname, not an id (POST /orgs/{orgId}/domains/{domain}/verify).
      name === 'orgId' ? organizationId : (ids[name] ?? (name === 'domain' ? 'walk.example' : uuidv7())),
    );
    const response = await stack.request(route.method, path, { token, ...(route.body !== undefined ? { body: route.body } : {}) });
    lines.push(`${route.method} ${route.template} → ${response.status} ${(await errorCode(response)) ?? ''}`);
  }
  return lines;
}

/** The same lines, each answered `status code`: what `toEqual` compares a walk with. */
export const everyAnswered = (lines: string[], status: number, code: string): string[] =>
  lines.map((line) => line.replace(/→ .*$/, `→ ${status} ${code}`));
