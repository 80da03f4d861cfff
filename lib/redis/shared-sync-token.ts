// Makes the clients of one store carry one read-your-writes sync token, so a read by any call kind follows every write
// this instance made through any other (docs/design/replicas.md).
import type { Redis } from '@upstash/redis/cloudflare';

/** The @upstash/redis release whose private shape `syncTokenHolder` was checked against (test/unit/shared-sync-token.test.ts). */
export const SYNC_TOKEN_SHAPE_CHECKED_AGAINST = '1.39.0';

/**
 * @upstash/redis keeps the token per client (its HttpClient's `upstashSyncToken`, sent as `upstash-sync-token` and
 * replaced by every answer's). Our store has one client per call kind, so a denylist SET on `atMostOnce` would leave
 * the `check` client's next read free to miss it; one token behind all four closes that gap.
 * test/integration/replica-lag.test.ts holds the client to this shape. Throws when the client is built if the field
 * moved, so read-your-writes never switches off silently.
 */
export function shareSyncToken(clients: readonly Redis[]): void {
  let token = '';
  for (const client of clients) {
    Object.defineProperty(syncTokenHolder(client), 'upstashSyncToken', {
      get: () => token,
      set: (value: string) => {
        token = value;
      },
    });
  }
}

/** The client's private HttpClient, checked to still hold `upstashSyncToken` as a plain string field with read-your-writes on. */
function syncTokenHolder(client: Redis): object {
  const requester: unknown = (client as unknown as { client?: unknown }).client;
  const holds =
    typeof requester === 'object' &&
    requester !== null &&
    typeof Object.getOwnPropertyDescriptor(requester, 'upstashSyncToken')?.value === 'string' &&
    (requester as { readYourWrites?: unknown }).readYourWrites === true &&
    typeof (requester as { request?: unknown }).request === 'function';
  if (!holds) {
    throw new Error(
      `@upstash/redis no longer keeps its read-your-writes sync token where lib/redis/shared-sync-token.ts reads it ` +
        `(client.client.upstashSyncToken, checked against @upstash/redis ${SYNC_TOKEN_SHAPE_CHECKED_AGAINST}): the installed ` +
        `client update moved it, so the four call kinds would each keep their own token and reads could miss this instance's ` +
        `writes. Refusing to start; pin @upstash/redis to ${SYNC_TOKEN_SHAPE_CHECKED_AGAINST} or adapt shared-sync-token.ts.`,
    );
  }
  return requester;
}
