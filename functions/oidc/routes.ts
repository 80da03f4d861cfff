// Route definitions (OpenAPI) of the OIDC sign-in function.
import { createRoute } from '@hono/zod-openapi';
import { errorResponses } from '../../lib/http/openapi-app.ts';
import { jsonContent } from '../../lib/http/route-schemas.ts';
import { callbackQuery, providerParams, signInResponseSchema, startQuery } from './schemas.ts';

const noStore = {
  'cache-control': { description: 'no-store', schema: { type: 'string' as const } },
  'referrer-policy': {
    description: 'no-referrer: the state and code in these URLs never leave in a Referer',
    schema: { type: 'string' as const },
  },
};

export const startOidcRoute = createRoute({
  method: 'get',
  path: '/auth/oidc/{provider}/start',
  summary: 'Begin signing in to an organisation through an OpenID provider: a redirect to its sign-in page',
  request: { params: providerParams, query: startQuery },
  responses: {
    302: {
      description: "to the provider's authorization endpoint, with a single-use state (10 minutes), a nonce and a PKCE S256 challenge",
      headers: { location: { description: "the provider's authorization URL", schema: { type: 'string' as const } }, ...noStore },
    },
    ...errorResponses(400, 404, 429, 502, 503),
  },
});

export const oidcCallbackRoute = createRoute({
  method: 'get',
  path: '/auth/oidc/{provider}/callback',
  summary: 'The provider sends the browser back here; the state is consumed once, and a verified, linked email signs in',
  request: { params: providerParams, query: callbackQuery },
  responses: {
    200: {
      description: 'signed in: the same body as POST /auth/login',
      headers: noStore,
      ...jsonContent(signInResponseSchema),
    },
    ...errorResponses(400, 401, 404, 503),
  },
});
