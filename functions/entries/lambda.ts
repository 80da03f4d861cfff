// AWS Lambda entry (API Gateway v2 / function URL events): configuration from the function's environment.
import { handle } from 'hono/aws-lambda';
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { configFor } from './env-config.ts';

// Lambda hands configuration to the process environment; this adapter is the one place that reads it.
const app = createApp(() => createDeps(configFor(process.env)));

export const handler = handle(app);
