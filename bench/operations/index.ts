// Every operation bench, in report order; the redis.ping baseline runs first, later issues append theirs. Bursts and
// figure benches run after them.
import type { BurstBench, FigureBench, OperationBench } from '../operation.ts';
import { apiKeyVerifyHitBench, apiKeyVerifyUnknownBench, memberCountByKeyBench, memberCountByTokenBench } from './api-keys.ts';
import { authBenches } from './auth.ts';
import { contextGetBench, contextGetStateMissingBench, contextSwitchBench, revocationCheckBehindBench } from './context.ts';
import { cronCleanupBench } from './cron.ts';
import { denylistRepairBench } from './denylist-repair.ts';
import { embeddedRedisBench } from './embedded-redis.ts';
import { listExportsBench } from './exports.ts';
import { bigOrgPageBench, invitesFairnessBench, listBesideBigOrgBench } from './invites-at-scale.ts';
import { inviteBenches } from './invites.ts';
import { kdfBench } from './kdf.ts';
import { changeRoleBenches, listMembersBench } from './members.ts';
import { mfaRecoverBench, mfaVerifyBench, mfaVerifyForgedBench } from './mfa.ts';
import { oidcStartBench } from './oidc.ts';
import { passkeyAuthenticateBench, passkeyAuthenticateForgedBench, passkeyOptionsBench } from './passkeys.ts';
import { rateLimitBench } from './rate-limit.ts';
import { redisPing } from './redis-ping.ts';
import { loginsBurst, syrveBenches } from './syrve.ts';
import { sessionsListBench } from './sessions.ts';
import { signingBenches } from './signing.ts';
import { singleUseBenches } from './single-use.ts';
import { throttleHitBench } from './throttle.ts';
import { healthBench, jobsClaimBench } from './jobs.ts';
import { tenantBenches } from './tenants.ts';
import { webhookDeliveryBench } from './webhooks.ts';

export const operationBenches: OperationBench[] = [
  redisPing,
  ...inviteBenches,
  listBesideBigOrgBench,
  bigOrgPageBench,
  throttleHitBench,
  ...syrveBenches,
  ...authBenches,
  contextGetBench,
  ...signingBenches,
  apiKeyVerifyHitBench,
  apiKeyVerifyUnknownBench,
  memberCountByKeyBench,
  memberCountByTokenBench,
  contextGetStateMissingBench,
  contextSwitchBench,
  revocationCheckBehindBench,
  ...singleUseBenches,
  mfaVerifyBench,
  mfaRecoverBench,
  mfaVerifyForgedBench,
  passkeyOptionsBench,
  passkeyAuthenticateBench,
  passkeyAuthenticateForgedBench,
  ...tenantBenches,
  sessionsListBench,
  listMembersBench,
  ...changeRoleBenches,
  oidcStartBench,
  jobsClaimBench,
  listExportsBench,
  healthBench,
];

export const burstBenches: BurstBench[] = [loginsBurst];

export const figureBenches: FigureBench[] = [
  cronCleanupBench,
  invitesFairnessBench,
  kdfBench,
  embeddedRedisBench,
  denylistRepairBench,
  rateLimitBench,
  webhookDeliveryBench,
];
