// Route definitions (OpenAPI) of the webhook function, under /webhooks.
import { defineRoute } from '../../lib/auth/define-function.ts';
import { jsonBody, jsonContent } from '../../lib/http/route-schemas.ts';
import { rotationBody, rotationHeaders, rotationResponse } from './schemas.ts';

/** Documented with its body, but served without a validator: one would parse the body before the signature is checked. */
export const rotationRoute = defineRoute({
  method: 'post',
  path: '/syrve/credentials-rotated',
  summary: 'Syrve/iiko credentials were rotated: store them sealed, drop the runtime session, test the connection',
  request: { headers: rotationHeaders, body: jsonBody(rotationBody) },
  errors: ['WEBHOOK_SIGNATURE_INVALID', 'WEBHOOK_REPLAYED', 'ROTATION_SUPERSEDED', 'NOT_FOUND', 'NOT_CONFIGURED', 'STORE_UNAVAILABLE'],
  responses: {
    200: { description: 'rotated and tested', ...jsonContent(rotationResponse) },
  },
});
