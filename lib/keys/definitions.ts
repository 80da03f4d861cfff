// Every key runstate stores, by name: the one place a key is declared (lib/keys/defs/<domain>.ts holds each domain's).
import { apiKeyKeys } from './defs/api-key.ts';
import { cacheKeys } from './defs/cache.ts';
import { contextKeys } from './defs/context.ts';
import { cronKeys } from './defs/cron.ts';
import { inviteKeys } from './defs/invite.ts';
import { jobKeys } from './defs/job.ts';
import { mfaKeys } from './defs/mfa.ts';
import { passkeyKeys } from './defs/passkey.ts';
import { reservedKeys } from './defs/reserved.ts';
import { revocationKeys } from './defs/revocation.ts';
import { signInPolicyKeys } from './defs/sign-in-policy.ts';
import { singleUseKeys } from './defs/single-use.ts';
import { syrveKeys } from './defs/syrve.ts';
import { tenantKeys } from './defs/tenant.ts';
import { rateLimitKeys } from './defs/rate-limit.ts';
import { throttleKeys } from './defs/throttle.ts';
import { webhookKeys } from './defs/webhook.ts';

export const KEY_DEFINITIONS = Object.freeze({
  ...inviteKeys,
  ...syrveKeys,
  ...mfaKeys,
  ...signInPolicyKeys,
  ...passkeyKeys,
  ...contextKeys,
  ...apiKeyKeys,
  ...throttleKeys,
  ...rateLimitKeys,
  ...jobKeys,
  ...revocationKeys,
  ...singleUseKeys,
  ...cronKeys,
  ...tenantKeys,
  ...cacheKeys,
  ...reservedKeys,
  ...webhookKeys,
});

type Definitions = typeof KEY_DEFINITIONS;

export type KeyName = keyof Definitions;

/** Reserved shapes with no builder (defs/reserved.ts). */
export type DataOnlyKeyName = { [K in KeyName]: Definitions[K] extends { dataOnly: true } ? K : never }[KeyName];

/** The names in declaration order, typed. */
export const KEY_NAMES = Object.keys(KEY_DEFINITIONS) as KeyName[];
