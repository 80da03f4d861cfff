// The `upstash-sync-token` header: the primary's replication offset, which a read waits for the replica to reach.
export const SYNC_TOKEN_HEADER = 'upstash-sync-token';

/** An absent, empty or foreign token asks for nothing (0); @upstash/redis sends "" until it has one. */
export function parseSyncToken(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : 0;
}

export function formatSyncToken(offset: number): string {
  return String(offset);
}
