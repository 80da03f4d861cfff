// The auth function: logout revokes the token's session in PostgreSQL and on the denylist.
import { createRoute } from '@hono/zod-openapi';
import { requireAuth } from '../../lib/auth/require-auth.ts';
import { logout } from '../../lib/auth/logout.ts';
import { bearerSecurity, createFunctionApp, errorResponses } from '../../lib/http/openapi-app.ts';

export const authFunction = createFunctionApp();

const logoutRoute = createRoute({
  method: 'post',
  path: '/auth/logout',
  summary: "Revoke the caller's session",
  security: bearerSecurity,
  middleware: [requireAuth] as const,
  responses: { 204: { description: 'revoked' }, ...errorResponses(401, 503) },
});

authFunction.openapi(logoutRoute, async (c) => {
  await logout(c.get('deps'), await c.get('auth').principal(), c.get('correlationId'));
  return c.body(null, 204);
});
