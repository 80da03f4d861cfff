// Every operation bench, in report order; the redis.ping baseline runs first, later issues append theirs. Bursts and
// figure benches run after them.
import type { BurstBench, FigureBench, OperationBench } from '../operation.ts';
import { cronCleanupBench } from './cron.ts';
import { bigOrgPageBench, listBesideBigOrgBench } from './invites-at-scale.ts';
import { inviteBenches } from './invites.ts';
import { mfaVerifyBench } from './mfa.ts';
import { redisPing } from './redis-ping.ts';
import { loginsBurst, syrveBenches } from './syrve.ts';
import { throttleHitBench } from './throttle.ts';

export const operationBenches: OperationBench[] = [
  redisPing,
  ...inviteBenches,
  listBesideBigOrgBench,
  bigOrgPageBench,
  throttleHitBench,
  ...syrveBenches,
  mfaVerifyBench,
];

export const burstBenches: BurstBench[] = [loginsBurst];

export const figureBenches: FigureBench[] = [cronCleanupBench];
