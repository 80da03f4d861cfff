// Sub-apps mounted on their prefix's first request (lib/http/mount-on-first-request.ts): loaded only when asked for, run
// in the app's own context after its middleware, matched in their declared order whichever came first, all of them at
// the document's path, and a failed load answered by the app's error handler.
import { OpenAPIHono } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { H, RouterRoute } from 'hono/types';
import { describe, expect, it } from 'vitest';
import { GrowingRouter } from '../../lib/http/growing-router.ts';
import type { HonoEnv } from '../../lib/http/hono-env.ts';
import { mountOnFirstRequest, type LazyMount } from '../../lib/http/mount-on-first-request.ts';

/** An app whose mounts record their loads, with one middleware setting a variable the sub-apps read. */
function appWith(subApps: Array<[prefix: string, build: () => Hono<HonoEnv>]>) {
  const loads: string[] = [];
  const router = new GrowingRouter<[H, RouterRoute]>();
  const app = new OpenAPIHono<HonoEnv>({ router });
  const mounts: LazyMount[] = subApps.map(([prefix, build]) => ({
    prefix,
    load: async () => {
      loads.push(prefix);
      return build();
    },
  }));
  const mountFailed = mountOnFirstRequest(app, router, mounts, '/everything');
  app.use(async (c, next) => {
    c.set('correlationId', 'from-the-parent');
    await next();
  });
  app.use(mountFailed);
  app.get('/everything', (c) => c.text('all mounted'));
  app.notFound((c) => c.text('none', 404));
  app.onError((error, c) => c.text(`handled: ${error.message}`, 500));
  return { app, loads };
}

const answering =
  (text: string, path = '/x') =>
  () =>
    new Hono<HonoEnv>().get(path, (c) => c.text(`${text} ${c.get('correlationId')}`));

describe('mountOnFirstRequest', () => {
  it('loads a sub-app on the first request under its prefix, once, and its handler sees the parent context', async () => {
    const { app, loads } = appWith([
      ['/a', answering('a')],
      ['/b', answering('b')],
    ]);
    expect(loads).toEqual([]);
    expect(await (await app.request('/elsewhere')).text()).toBe('none');
    expect(loads).toEqual([]);
    const [first, second] = await Promise.all([app.request('/a/x'), app.request('/a/x')]);
    expect(await first.text()).toBe('a from-the-parent');
    expect(await second.text()).toBe('a from-the-parent');
    expect(await (await app.request('/a/x')).text()).toBe('a from-the-parent');
    expect(loads).toEqual(['/a']);
    expect((await app.request('/a/unknown')).status).toBe(404);
  });

  it('matches sub-apps in their declared order, whichever was mounted first', async () => {
    // Both answer GET /a/b/x; the first declared answers it, as when both are mounted at start.
    const { app, loads } = appWith([
      ['/a/:p', answering('first')],
      ['/:q/b', answering('second')],
    ]);
    // Under the second prefix only: the second is mounted, and its routes are in the router before the first's.
    expect(await (await app.request('/z/b/x')).text()).toBe('second from-the-parent');
    expect(loads).toEqual(['/:q/b']);
    expect(await (await app.request('/a/b/x')).text()).toBe('first from-the-parent');
    expect(loads).toEqual(['/:q/b', '/a/:p']);
    expect(await (await app.request('/z/b/x')).text()).toBe('second from-the-parent');
  });

  it('mounts every sub-app before answering at the path that needs them all', async () => {
    const { app, loads } = appWith([
      ['/a', answering('a')],
      ['/b', answering('b')],
    ]);
    expect(await (await app.request('/everything')).text()).toBe('all mounted');
    expect(loads.sort()).toEqual(['/a', '/b']);
    expect(app.routes.map((route) => route.path)).toEqual(expect.arrayContaining(['/a/x', '/b/x']));
  });

  it('answers a failed load through the error handler, and loads again on the next request', async () => {
    let attempts = 0;
    const { app } = appWith([
      [
        '/flaky',
        () => {
          attempts++;
          if (attempts === 1) throw new Error('module failed');
          return answering('flaky')();
        },
      ],
    ]);
    const failed = await app.request('/flaky/x');
    expect(failed.status).toBe(500);
    expect(await failed.text()).toBe('handled: module failed');
    expect(await (await app.request('/flaky/x')).text()).toBe('flaky from-the-parent');
    expect(attempts).toBe(2);
  });
});
