// tenants.verifyDomain: the admin asks to prove a pending claim. The configured DNS-over-HTTPS resolver is asked for
// `_runstate-challenge.<domain>` TXT; when it holds this claim's `runstate-verification=<token>`, one statement moves
// the claim into organization_domains (from then on it resolves), drops every other organisation's claim of the domain
// and writes `tenant.domain_verified`. Nothing is written on any other outcome (docs/design/tenants.md#domain-verification).
import type { Deps } from '../../deps.ts';
import { auditActor, computedAuditInsert } from '../../pg/audit.ts';
import { dbCall, sqlState } from '../../pg/unavailable.ts';
import { lookupTxt } from '../../upstream/dns/index.ts';
import { throttle } from '../throttle/index.ts';
import { challengeName, challengeValue, verifiedView, type DomainView } from './domain-claims.ts';
import { invalidateTenant } from './invalidate-tenant.ts';

export type VerifyDomainOutcome =
  | { ok: true; domain: DomainView }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number }
  | {
      ok: false;
      /**
       * `not-configured`: no resolver (DOMAIN_VERIFY_DOH_URL); `not-found`: no such claim of this organisation (or it was
       * replaced meanwhile); `domain-taken`: another organisation proved it first; `record-missing`: the resolver answered
       * and the expected TXT is not among the answers; `resolver-failed`: it did not answer usably in time.
       */
      reason: 'not-configured' | 'not-found' | 'domain-taken' | 'record-missing' | 'resolver-failed';
    };

interface ClaimRow {
  token: string | null;
  verified_at: string | null;
  mine: boolean;
  theirs: boolean;
}

export async function verifyDomain(
  deps: Deps,
  input: { organizationId: string; actorUserId: string; actorApiKeyId?: string | undefined; domain: string; correlationId: string },
): Promise<VerifyDomainOutcome> {
  const resolver = deps.config.domainVerify;
  if (resolver === undefined) return { ok: false, reason: 'not-configured' };
  const [claim] = await dbCall('read', 'tenants.verifyDomain.read', (signal) =>
    deps.db.query<ClaimRow>(
      `SELECT (SELECT token FROM organization_domain_claims WHERE organization_id = $1 AND domain = $2) AS token,
              (SELECT verified_at FROM organization_domains WHERE organization_id = $1 AND domain = $2) AS verified_at,
              EXISTS (SELECT 1 FROM organization_domains WHERE organization_id = $1 AND domain = $2) AS mine,
              EXISTS (SELECT 1 FROM organization_domains WHERE organization_id <> $1 AND domain = $2) AS theirs
         FROM organizations WHERE id = $1 AND state <> 'deleted'`,
      [input.organizationId, input.domain],
      { signal },
    ),
  );
  if (claim === undefined) return { ok: false, reason: 'not-found' };
  // Already proved: the same answer again, without asking DNS (a retried verify is not an error).
  if (claim.mine) return { ok: true, domain: verifiedView(input.domain, claim.verified_at) };
  if (claim.theirs) return { ok: false, reason: 'domain-taken' };
  if (claim.token === null) return { ok: false, reason: 'not-found' };

  // Counted only when DNS is about to be asked: every lookup is an outbound request (fails open, as every throttle).
  const counted = await throttle.hit(deps, {
    action: 'domain-verify',
    scope: { kind: 'org', id: input.organizationId },
    subject: input.organizationId,
    correlationId: input.correlationId,
  });
  if (!counted.allowed) return { ok: false, reason: 'rate-limited', retryAfterSeconds: counted.retryAfterSeconds };
  const lookup = await lookupTxt(resolver.dohUrl, challengeName(input.domain));
  if (!lookup.ok) {
    // The reason as a word; never the resolver's body, the domain or the token.
    deps.logger.warn('domain_verify_resolver_failed', {
      organizationId: input.organizationId,
      reason: lookup.reason,
      correlationId: input.correlationId,
    });
    return { ok: false, reason: 'resolver-failed' };
  }
  const expected = challengeValue(claim.token);
  if (!lookup.records.some((record) => record.trim() === expected)) return { ok: false, reason: 'record-missing' };

  const now = new Date(deps.clock.now());
  const audit = computedAuditInsert(
    {
      action: 'tenant.domain_verified',
      ...auditActor(input.actorUserId, input.actorApiKeyId),
      organizationId: input.organizationId,
      locationId: null,
      targetId: input.organizationId,
      correlationId: input.correlationId,
      details: { domain: input.domain },
    },
    now,
    { computed: { droppedClaims: 'SELECT count(*) FROM dropped' }, when: 'EXISTS (SELECT 1 FROM added)' },
    5,
  );
  const commit = () =>
    dbCall('commit', 'tenants.verifyDomain', (signal) =>
      deps.db.query<{ slug: string | null; added: number }>(
        // The claim is taken only with the token the resolver was asked about: one removed and claimed again meanwhile
        // has a new token, and its admin has not published that one yet. Another organisation's verified row makes the
        // INSERT fail on the primary key (23505), whichever committed first.
        `WITH org AS (
           SELECT id, slug FROM organizations WHERE id = $1 AND state <> 'deleted' FOR UPDATE
         ), claim AS (
           DELETE FROM organization_domain_claims
            WHERE organization_id = $1 AND domain = $2 AND token = $3 AND EXISTS (SELECT 1 FROM org)
           RETURNING domain
         ), added AS (
           INSERT INTO organization_domains (domain, organization_id, created_at, verified_at)
           SELECT domain, $1, $4, $4 FROM claim
           RETURNING domain
         ), dropped AS (
           DELETE FROM organization_domain_claims
            WHERE domain = $2 AND organization_id <> $1 AND EXISTS (SELECT 1 FROM added)
           RETURNING organization_id
         ), audit AS (${audit.text})
         SELECT (SELECT slug FROM org) AS slug, (SELECT count(*) FROM added)::int AS added`,
        [input.organizationId, input.domain, claim.token, now.toISOString(), ...audit.params],
        { signal },
      ),
    );
  let rows: Array<{ slug: string | null; added: number }>;
  try {
    rows = await commit().catch((error: unknown) => {
      // Two organisations verifying one domain at once each delete the other's claim while the other waits on their
      // INSERT: PostgreSQL aborts one of them (40P01). Run again, that statement waits for the winner's commit and
      // then finds the domain taken.
      if (sqlState(error) === '40P01') return commit();
      throw error;
    });
  } catch (error) {
    if (sqlState(error) === '23505') return { ok: false, reason: 'domain-taken' };
    throw error;
  }
  const row = rows[0];
  if (row === undefined || row.slug === null) return { ok: false, reason: 'not-found' };
  if (row.added === 0) return { ok: false, reason: await whyNotAdded(deps, input) };
  // A resolve that found nothing a moment ago is remembered as a miss: forget it, so the domain resolves at once.
  await invalidateTenant(deps, {
    organizationId: input.organizationId,
    slugs: [row.slug],
    domains: [input.domain],
    correlationId: input.correlationId,
  });
  return { ok: true, domain: verifiedView(input.domain, now) };
}

/**
 * The claim was gone when the statement reached it. Usually another organisation's verify of the same domain dropped
 * it while this one waited on its row (that commit is invisible to the statement's own snapshot, so it is asked again
 * here); otherwise the admin removed or replaced the claim meanwhile.
 */
async function whyNotAdded(deps: Deps, input: { organizationId: string; domain: string }): Promise<'domain-taken' | 'not-found'> {
  const rows = await dbCall('read', 'tenants.verifyDomain.lost', (signal) =>
    deps.db.query<{ theirs: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM organization_domains WHERE domain = $1 AND organization_id <> $2) AS theirs',
      [input.domain, input.organizationId],
      { signal },
    ),
  );
  return rows[0]?.theirs === true ? 'domain-taken' : 'not-found';
}
