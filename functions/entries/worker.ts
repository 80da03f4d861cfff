// Cloudflare Workers entry: configuration from the bindings, dependencies built per request.
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { configFor } from './env-config.ts';

const app = createApp((c) => createDeps(configFor(c.env as object)));

export default {
  fetch: app.fetch,
};
