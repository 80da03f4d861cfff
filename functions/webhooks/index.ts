// The credential-rotation webhook: signature, freshness and replay are checked on the raw body before its meaning is read.
import type * as z from 'zod';
import { defineFunction } from '../../lib/auth/define-function.ts';
import { errors } from '../../lib/http/app-error.ts';
import { describeIssues } from '../../lib/http/validation.ts';
import { syrve } from '../../lib/runtime/syrve/index.ts';
import { isWebhookUsed } from '../../lib/runtime/webhook-deliveries.ts';
import { verifyStandardWebhook } from '../../lib/webhooks/standard-webhooks.ts';
import { rotationRoute } from './routes.ts';
import { rotationBody } from './schemas.ts';

// No bearer token: the sender signs each delivery (lib/webhooks/standard-webhooks.ts).
export const webhooksFunction = defineFunction({ prefix: '/webhooks', auth: 'none' });

webhooksFunction.unvalidated(rotationRoute, async (c) => {
  const deps = c.get('deps');
  const secret = deps.config.webhookSecret;
  if (secret === undefined) throw errors.NOT_CONFIGURED('the credential-rotation webhook (WEBHOOK_SECRET)');
  // A client that goes away mid-body is a bad request, not our error (no 500 in the logs for it).
  const rawBody = await c.req.text().catch(() => {
    throw errors.VALIDATION_FAILED('the request body could not be read');
  });
  const verified = await verifyStandardWebhook({
    secret,
    headers: { id: c.req.header('webhook-id'), timestamp: c.req.header('webhook-timestamp'), signature: c.req.header('webhook-signature') },
    rawBody,
    nowMs: deps.clock.now(),
  });
  if (!verified.ok) throw errors.WEBHOOK_SIGNATURE_INVALID();
  if (await isWebhookUsed(deps, verified.webhookId)) throw errors.WEBHOOK_REPLAYED();
  const body = parseBody(rawBody);
  const outcome = await syrve.rotate(deps, {
    webhookId: verified.webhookId,
    timestampSeconds: verified.timestampSeconds,
    organizationId: body.organizationId,
    connectionId: body.connectionId,
    login: body.login,
    password: body.password,
    correlationId: c.get('correlationId'),
  });
  if (!outcome.ok) {
    if (outcome.reason === 'not-found') throw errors.NOT_FOUND('no such connection in this organisation');
    if (outcome.reason === 'replayed') throw errors.WEBHOOK_REPLAYED();
    throw errors.ROTATION_SUPERSEDED();
  }
  return c.json({ connectionId: outcome.connectionId, test: outcome.test }, 200);
});

function parseBody(rawBody: string): z.infer<typeof rotationBody> {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    throw errors.VALIDATION_FAILED('the request body is not valid JSON of the expected type');
  }
  const parsed = rotationBody.safeParse(json);
  // Paths and rules only, never the submitted values (the body carries a password).
  if (!parsed.success) throw errors.VALIDATION_FAILED(describeIssues(parsed.error.issues));
  return parsed.data;
}
