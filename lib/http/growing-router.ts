// Hono's default router for an app that keeps receiving routes after its first request (functions/app.ts mounts each
// function when its prefix is first asked for): Hono's own routers refuse a route once they have matched.
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';

interface AddedRoute<T> {
  group: number;
  method: string;
  path: string;
  handler: T;
}

/**
 * Keeps every route added and builds Hono's default router (as `new Hono()` makes it) from them on the first match
 * after a change. Routes match in the order of their group, then in the order added: a function mounted late still
 * runs after the app's own middleware and in its place among the other functions, as if all were mounted at once.
 */
export class GrowingRouter<T> implements Router<T> {
  readonly name = 'GrowingRouter';
  readonly #routes: Array<AddedRoute<T>> = [];
  #group = 0;
  #built: Router<T> | undefined;

  add(method: string, path: string, handler: T): void {
    // After the last route of the same or an earlier group.
    let at = this.#routes.length;
    while (at > 0 && this.#routes[at - 1]!.group > this.#group) at--;
    this.#routes.splice(at, 0, { group: this.#group, method, path, handler });
    this.#built = undefined;
  }

  /** Routes added while `register` runs belong to `group` (0 until then: the app's own, added first). */
  inGroup(group: number, register: () => void): void {
    const outer = this.#group;
    this.#group = group;
    try {
      register();
    } finally {
      this.#group = outer;
    }
  }

  match(method: string, path: string): Result<T> {
    if (this.#built === undefined) {
      const router = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
      for (const route of this.#routes) router.add(route.method, route.path, route.handler);
      this.#built = router;
    }
    return this.#built.match(method, path);
  }
}
