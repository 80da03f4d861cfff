// Route definitions (OpenAPI) of the OIDC sign-in function.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonContent } from '../../lib/http/route-schemas.ts';
import { callbackQuery, providerParams, signInResponseSchema, startQuery } from './schemas.ts';

const noStoreHeaders = {
  'cache-control': { description: 'no-store', schema: { type: 'string' as const } },
  'referrer-policy': {
    description: 'no-referrer: the state and code in these URLs never leave in a Referer',
    schema: { type: 'string' as const },
  },
};

export const startOidcRoute = defineRoute({
  method: 'get',
  path: '/{provider}/start',
  summary:
    'Begin signing in to an organisation through an OpenID provider it lists: a redirect to its sign-in page, and a cookie binding the sign-in to this browser',
  request: { params: providerParams, query: startQuery },
  errors: ['NOT_FOUND', 'SIGN_IN_METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'UPSTREAM_FAILED', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: {
    302: {
      description: "to the provider's authorization endpoint, with a single-use state (10 minutes), a nonce and a PKCE S256 challenge",
      headers: {
        location: { description: "the provider's authorization URL", schema: { type: 'string' as const } },
        'set-cookie': {
          description:
            'the browser binding cookie the callback requires (HttpOnly, SameSite=Lax, 10 minutes; __Host- and Secure when the deployment is https)',
          schema: { type: 'string' as const },
        },
        ...noStoreHeaders,
      },
    },
  },
});

export const oidcCallbackRoute = defineRoute({
  method: 'get',
  path: '/{provider}/callback',
  summary:
    'The provider sends the browser back here; the state is consumed once, only by the browser that started it, and a verified, linked email signs in',
  request: { params: providerParams, query: callbackQuery },
  errors: [
    'OIDC_FAILED',
    'INVALID_CREDENTIALS',
    'TENANT_SUSPENDED',
    'SIGN_IN_METHOD_NOT_ALLOWED',
    'MFA_ENROLMENT_REQUIRED',
    'NOT_FOUND',
    'RATE_LIMITED',
    'NOT_CONFIGURED',
    'STORE_UNAVAILABLE',
  ],
  responses: {
    200: {
      description: 'signed in: the same body as POST /auth/login',
      headers: noStoreHeaders,
      ...jsonContent(signInResponseSchema),
    },
  },
});
