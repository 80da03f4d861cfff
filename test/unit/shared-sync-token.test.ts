// The read-your-writes sync token shared by a store's four clients, and the refusal to build them when @upstash/redis
// moved the private field it lives in (lib/redis/shared-sync-token.ts).
import { readFileSync } from 'node:fs';
import { Redis } from '@upstash/redis/cloudflare';
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../../lib/redis/index.ts';
import { shareSyncToken, SYNC_TOKEN_SHAPE_CHECKED_AGAINST } from '../../lib/redis/shared-sync-token.ts';

// Never contacted: nothing here sends a command. Built as lib/redis/store.ts builds them (no auto-pipelining proxy).
const endpoint = { url: 'http://127.0.0.1:9', token: 'unit-test-token' };
const newClient = () => new Redis({ ...endpoint, readYourWrites: true, enableTelemetry: false, enableAutoPipelining: false });
const tokenOf = (client: Redis) => (client as unknown as { client: { upstashSyncToken: string } }).client.upstashSyncToken;

describe('shareSyncToken', () => {
  it('gives a real client of the installed @upstash/redis one token for all its kinds', () => {
    const store = createRedisStore(endpoint);
    store.atMostOnce.readYourWritesSyncToken = 'after-a-write';
    expect([store.check, store.retrySafe, store.throttle].map(tokenOf)).toEqual(['after-a-write', 'after-a-write', 'after-a-write']);
    expect(store.check.readYourWritesSyncToken).toBe('after-a-write');
  });

  it('refuses to build the store, naming the checked version, when the client no longer holds the field', () => {
    const moved = newClient();
    delete (moved as unknown as { client: { upstashSyncToken?: string } }).client.upstashSyncToken;
    expect(() => shareSyncToken([newClient(), moved])).toThrow(`checked against @upstash/redis ${SYNC_TOKEN_SHAPE_CHECKED_AGAINST}`);
    const renamed = newClient();
    (renamed as unknown as { client: unknown }).client = { syncToken: '', readYourWrites: true, request: () => undefined };
    expect(() => shareSyncToken([renamed])).toThrow(/Refusing to start/);
  });

  it('refuses a client whose read-your-writes is off, since the shared token would then never be sent', () => {
    const off = new Redis({ ...endpoint, readYourWrites: false, enableTelemetry: false, enableAutoPipelining: false });
    expect(() => shareSyncToken([off])).toThrow(/upstashSyncToken/);
  });

  it('was checked against the installed @upstash/redis: an update must be checked again before this constant moves', () => {
    const installed = JSON.parse(readFileSync('node_modules/@upstash/redis/package.json', 'utf8')) as { version: string };
    expect(installed.version).toBe(SYNC_TOKEN_SHAPE_CHECKED_AGAINST);
  });
});
