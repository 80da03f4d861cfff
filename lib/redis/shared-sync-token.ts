// Makes the clients of one store carry one read-your-writes sync token, so a read by any call kind follows every write
// this instance made through any other (docs/design/replicas.md).
import type { Redis } from '@upstash/redis/cloudflare';

/**
 * @upstash/redis keeps the token per client (its HttpClient's `upstashSyncToken`, sent as `upstash-sync-token` and
 * replaced by every answer's). Our store has one client per call kind, so a denylist SET on `atMostOnce` would leave
 * the `check` client's next read free to miss it; one token behind all four closes that gap.
 * test/integration/replica-lag.test.ts holds the client to this shape.
 */
export function shareSyncToken(clients: readonly Redis[]): void {
  let token = '';
  for (const client of clients) {
    const requester = (client as unknown as { client: { upstashSyncToken: string } }).client;
    Object.defineProperty(requester, 'upstashSyncToken', {
      get: () => token,
      set: (value: string) => {
        token = value;
      },
    });
  }
}
