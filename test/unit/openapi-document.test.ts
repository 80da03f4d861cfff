// GET /openapi.json is generated once per app and then served as the same text: it must be exactly the document the
// routes generate (functions/openapi-document.ts), on the first request and on every later one.
import { describe, expect, it } from 'vitest';
import { createApp } from '../../functions/app.ts';
import { OPENAPI_OBJECT, OPENAPI_PATH } from '../../functions/openapi-document.ts';
import { offlineDeps } from '../support/offline-deps.ts';

const deps = offlineDeps();

describe('GET /openapi.json', () => {
  it('serves the document the routes generate, as JSON, and the same text on every later request', async () => {
    const app = createApp(() => deps);
    const first = await app.request(OPENAPI_PATH);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    const firstText = await first.text();
    // Generated afresh from another app's routes, once its functions are mounted (a request for the document mounts
    // them all): what is served is the whole contract, not a stale or partial one.
    const other = createApp(() => deps);
    expect(other.getOpenAPI31Document(OPENAPI_OBJECT).paths).toEqual({});
    expect((await other.request(OPENAPI_PATH)).status).toBe(200);
    const generated = other.getOpenAPI31Document(OPENAPI_OBJECT);
    expect(JSON.parse(firstText)).toEqual(generated);
    expect(firstText).toBe(JSON.stringify(generated));
    const second = await app.request(OPENAPI_PATH);
    expect(second.status).toBe(200);
    expect(await second.text()).toBe(firstText);
    // The routes answer as before once the document was generated (generating it registers or changes nothing).
    expect(JSON.stringify(app.getOpenAPI31Document(OPENAPI_OBJECT))).toBe(firstText);
  });

  it('is the same text whichever functions were asked for first (each is mounted on its first request)', async () => {
    const fresh = await (await createApp(() => deps).request(OPENAPI_PATH)).text();
    const app = createApp(() => deps);
    // The public tenant resolve is declared late and sign-in early: mounted in the opposite order here.
    expect((await app.request('/public/tenants/resolve')).status).toBe(400);
    expect((await app.request('/auth/login', { method: 'POST', body: '{}' })).status).toBe(400);
    expect(await (await app.request(OPENAPI_PATH)).text()).toBe(fresh);
  });

  it('names every path the app routes, the document among none of them', async () => {
    const app = createApp(() => deps);
    const document = (await (await app.request(OPENAPI_PATH)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).length).toBeGreaterThanOrEqual(40);
    expect(document.paths).not.toHaveProperty(OPENAPI_PATH);
  });
});
