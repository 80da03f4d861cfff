// Cloudflare Workers entry: configuration from the bindings, dependencies built per request.
import { createApp } from '../app.ts';
import { createDeps } from '../../lib/create-deps.ts';
import { SingleFlight } from '../../lib/runtime/single-flight.ts';
import { configFor } from './env-config.ts';

// One per isolate (container): concurrent requests here share an in-flight upstream login.
const inflight = new SingleFlight();
const app = createApp((c) => createDeps(configFor(c.env as object), { inflight }));

export default {
  fetch: app.fetch,
};
