// Fixed key strings for known inputs: an oracle independent of lib/keys/defs, so a changed definition (a renamed purpose,
// a reordered segment, another scope) fails here even though the builders and the matchers would still agree.
import { describe, expect, it } from 'vitest';
import { createKeyspace, type HashedSegment } from '../../lib/keys/index.ts';

const k = createKeyspace({ prefix: 'mhpay', env: 'prod' });
// Upper case in: the key holds the lowercase form.
const ORG = '0190A5B2-7C3D-7E4F-8A1B-2C3D4E5F6071';
const ID = '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6072';
const H = 'ab'.repeat(32) as HashedSegment;
const org = ORG.toLowerCase();
const id = ID;

describe('key strings', () => {
  it('are byte for byte the ones live keyspaces hold', () => {
    const cases: Array<[string, string]> = [
      [k.inviteObject(ORG, ID), `mhpay:prod:org:{${org}}:invite:object:${id}`],
      [k.inviteActiveByOrg(ORG), `mhpay:prod:org:{${org}}:invite:active-by-org:${org}`],
      [k.inviteActiveByEmailHash(ORG, H), `mhpay:prod:org:{${org}}:invite:active-by-email-hash:${H}`],
      [k.inviteEmailIndexesByOrg(ORG), `mhpay:prod:org:{${org}}:invite:email-indexes-by-org:${org}`],
      [k.inviteReceipt(ORG, ID), `mhpay:prod:org:{${org}}:invite:receipt:${id}`],
      [k.inviteReceiptsByOrg(ORG), `mhpay:prod:org:{${org}}:invite:receipts-by-org:${org}`],
      [k.syrveRuntimeToken(ORG, ID), `mhpay:prod:org:{${org}}:syrve:runtime-token:${id}`],
      [k.syrveRuntimeTokenRefreshLock(ORG, ID), `mhpay:prod:org:{${org}}:syrve:runtime-token-refresh-lock:${id}`],
      [k.syrveReconnectFailures(ORG, ID), `mhpay:prod:org:{${org}}:syrve:reconnect-failures:${id}`],
      [k.syrveCredentialVersion(ORG, ID), `mhpay:prod:org:{${org}}:syrve:credential-version:${id}`],
      [k.webhookDeliveryLease(ORG, ID), `mhpay:prod:org:{${org}}:webhook:delivery-lease:${id}`],
      [k.mfaChallenge(ORG, ID), `mhpay:prod:user:{${org}}:mfa:challenge:${id}`],
      [k.mfaTotpUsed(ORG, 57_766_666), `mhpay:prod:user:{${org}}:mfa:totp-used:57766666`],
      [k.authSessionState(ORG, ID), `mhpay:prod:user:{${org}}:auth:session-state:${id}`],
      [k.activeContext(ORG, ID), `mhpay:prod:user:{${org}}:context:active:${id}`],
      [k.activeContextIndex(ORG), `mhpay:prod:user:{${org}}:context:active-by-user:${org}`],
      [
        k.throttleCounter({ kind: 'outlet', id: ORG }, 'login', H, 1_700_000_000),
        `mhpay:prod:outlet:{${org}}:throttle:counter:login.${H}.1700000000`,
      ],
      [
        k.throttleCounter({ kind: 'platform', tag: 'tenant-resolve' }, 'tenant-resolve', H, 0),
        `mhpay:prod:platform:{tenant-resolve}:throttle:counter:tenant-resolve.${H}.0`,
      ],
      [
        k.throttleCounter({ kind: 'org', id: ORG }, 'oidc-audit-org', H, 1_700_000_000),
        `mhpay:prod:org:{${org}}:throttle:counter:oidc-audit-org.${H}.1700000000`,
      ],
      [k.jobCache({ kind: 'platform' }, ID), `mhpay:prod:platform:job:cache:${id}`],
      [k.revokedSession(ID), `mhpay:prod:platform:{denylist}:auth:revoked-session:${id}`],
      [k.revokedJti(H), `mhpay:prod:platform:{denylist}:auth:revoked-jti:${H}`],
      [k.apiKeyEntry(ORG, H), `mhpay:prod:org:{${org}}:auth:api-key:${H}`],
      [k.denylistState(), `mhpay:prod:platform:{denylist}:auth:denylist-state:all`],
      [k.denylistRepairLock(), `mhpay:prod:platform:{denylist}:auth:denylist-repair-lock:all`],
      [k.passwordResetToken(H), `mhpay:prod:platform:auth:password-reset:${H}`],
      [k.ssoHandoffCode(H), `mhpay:prod:platform:{sso-handoff}:auth:sso-handoff:${H}`],
      [k.oidcState(H), `mhpay:prod:platform:{oidc-callback}:auth:oidc-state:${H}`],
      [k.passkeyChallenge(H), `mhpay:prod:platform:{passkey}:auth:passkey-challenge:${H}`],
      [k.consoleDevLogin(H), `mhpay:prod:platform:auth:console-dev-login:${H}`],
      [k.cronRunLock(), `mhpay:prod:platform:cron:run-lock:all`],
      [k.tenantResolveSlug(H), `mhpay:prod:platform:{tenant-resolve}:tenant:resolve-slug:${H}`],
      [k.tenantResolveDomain(H), `mhpay:prod:platform:{tenant-resolve}:tenant:resolve-domain:${H}`],
      [k.tenantResolveSlugMisses(), `mhpay:prod:platform:{tenant-resolve}:tenant:resolve-slug-misses:all`],
      [k.tenantResolveDomainMisses(), `mhpay:prod:platform:{tenant-resolve}:tenant:resolve-domain-misses:all`],
      [k.tenantResolveGeneration(), `mhpay:prod:platform:{tenant-resolve}:tenant:resolve-generation:all`],
      [k.orgCacheGeneration(ORG), `mhpay:prod:org:{${org}}:cache:generation:${org}`],
      [k.orgSettingsCache(ORG, '0'), `mhpay:prod:org:{${org}}:cache:settings:0`],
      [k.orgPlanLimitsCache(ORG, '0'), `mhpay:prod:org:{${org}}:cache:rate-limits:0`],
      [
        k.rateLimitCounter({ kind: 'org', id: ORG }, 'tenant', H, 29_000_000),
        `mhpay:prod:org:{${org}}:ratelimit:counter:tenant.${H}.29000000`,
      ],
      [k.rateLimitCounter({ kind: 'user', id: ORG }, 'user-route', H, 0), `mhpay:prod:user:{${org}}:ratelimit:counter:user-route.${H}.0`],
      [k.orgMemberCountCache(ORG, 'f'.repeat(32), ID), `mhpay:prod:org:{${org}}:cache:member-count:ffffffffffffffffffffffffffffffff.${id}`],
      [k.orgMemberCountCache(ORG, '0', null), `mhpay:prod:org:{${org}}:cache:member-count:0.all`],
      [k.inviteObjectPrefix(ORG), `mhpay:prod:org:{${org}}:invite:object:`],
      [k.inviteActiveByEmailHashPrefix(ORG), `mhpay:prod:org:{${org}}:invite:active-by-email-hash:`],
      [k.inviteReceiptPrefix(ORG), `mhpay:prod:org:{${org}}:invite:receipt:`],
      [k.orgCacheEntryPrefix(ORG, 'member-count'), `mhpay:prod:org:{${org}}:cache:member-count:`],
      [k.scanPattern, `mhpay:prod:*`],
    ];
    for (const [actual, expected] of cases) expect(actual).toBe(expected);
  });
});
