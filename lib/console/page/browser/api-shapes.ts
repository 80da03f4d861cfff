// What the API answers, as far as the console's browser script reads it (docs/api.md#routes has the whole shapes):
// types only, for tsc's check of ./console.js, which imports them in a JSDoc comment and so ships none of this.

export interface Outlet {
  locationId: string;
  name: string;
}

export interface Membership {
  organizationId: string;
  name: string;
  roleCode: string | null;
  /** PUT /auth/context reaches it without a new sign-in (docs/api.md, memberships). */
  switchable: boolean;
  locations: Outlet[];
}

export interface Context {
  organizationId: string;
  locationId: string | null;
  roleCode: string;
}

export interface Invite {
  inviteId: string;
  email: string;
  roleCode: string;
  locationId: string | null;
  expiresAtUtc: string;
}

export interface HistoryEvent {
  occurredAt: string;
  action: string;
  actorUserId: string | null;
  actor: { type: 'user'; userId: string } | { type: 'api_key'; apiKeyId: string } | null;
  /** Set only for a member of this organisation, and only to a caller who may list the members. */
  actorEmail: string | null;
  inviteId: string | null;
  outletId: string | null;
  correlationId: string;
}

export interface Connection {
  connectionId: string;
  name: string;
  enabled: boolean;
}

export interface Runtime {
  session: { cached: boolean; secondsLeft: number };
  refreshLock: { held: boolean; secondsLeft: number };
  reconnect: { circuitOpen: boolean; secondsLeft: number; failures: number };
}

export interface Job {
  jobId: string;
  state: string;
  progressPercent: number;
  rowsDone: number;
  rowsTotal: number;
  stalled: boolean;
  createdAtUtc: string;
  finishedAtUtc: string | null;
  /** Queued: when the scheduled run that should start it is due. */
  expectedStartBy: string | null;
  requestedByUserId: string;
  /** In the list's items only (GET …/audit/exports). */
  requestedBy?: { type: 'user'; userId: string; email: string | null } | { type: 'api_key'; apiKeyId: string };
}

export interface Member {
  userId: string;
  email: string;
  roleCode: string;
  locationId: string | null;
  joinedAt: string;
}

export interface Session {
  id: string;
  current: boolean;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  organizationId: string;
  method: string | null;
}

export interface Passkey {
  passkeyId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  transports: string[];
}

export interface SignInPolicy {
  requireMfa: boolean;
  allowedMethods: string[];
}

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  description: string | null;
  events: string[];
  state: 'enabled' | 'disabled';
  disabledReason: 'admin' | 'failing' | null;
  failingSince: string | null;
  secretVersion: number;
  previousSecretUntil: string | null;
  createdAt: string;
}

export interface Delivery {
  deliveryId: string;
  eventType: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface ApiKey {
  apiKeyId: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  rateLimitPerMinute: number | null;
}

/** What the console reads of ua-parser-js 1.x's result (its browser build sets globalThis.UAParser). */
export interface UAParserResult {
  browser: { name?: string; major?: string };
  os: { name?: string; version?: string };
  /** undefined for a desktop browser; else mobile, tablet, console, smarttv, wearable or embedded. */
  device: { type?: string };
}

export type UAParserConstructor = new (userAgent: string) => { getResult(): UAParserResult };
