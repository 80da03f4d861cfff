// AWS Lambda entry (API Gateway v2 / function URL events): configuration from the function's environment.
import { handle } from 'hono/aws-lambda';
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { SingleFlight } from '../../lib/runtime/single-flight.ts';
import { configFor } from './env-config.ts';

// Lambda hands configuration to the process environment; this adapter is the one place that reads it.
// One per isolate (container): concurrent requests here share an in-flight upstream login.
const inflight = new SingleFlight();
const app = createApp(() => createDeps(configFor(process.env), { inflight }));

export const handler = handle(app);
