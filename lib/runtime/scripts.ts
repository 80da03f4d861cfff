// Every Lua script the runtime runs, in one list, so tests can hold each one to the Redis 6.0 ceiling and its SHA.
import type { LuaScript } from '../redis/index.ts';
import {
  ACCEPT_INVITE,
  CANCEL_INVITE,
  CREATE_INVITE,
  FORGET_RECEIPTS,
  LIST_INVITES,
  PRUNE_EMAIL_INDEXES,
  PRUNE_ORG_INDEX,
  RECEIPTS_DUE,
  REMOVE_INVITE,
  RETURN_INVITE,
} from './invites/index.ts';
import { THROTTLE_HIT } from './throttle/index.ts';
import { ANSWER_MFA_CHALLENGE, ISSUE_MFA_CHALLENGE } from '../auth/mfa/index.ts';
import { DROP_ORG_CONTEXTS, SET_ACTIVE_CONTEXT } from '../auth/context/index.ts';
import {
  COUNT_RECONNECT_FAILURE,
  READ_RUNTIME_STATE,
  RESET_SESSION,
  STORE_SESSION,
  SYRVE_HOUSEKEEPING,
  TAKE_REFRESH_LOCK,
} from './syrve/index.ts';
import { TAKE_RUN_LOCK } from '../cron/run-lock.ts';
import { DELETE_IF_EQUALS } from './compare-and-delete.ts';
import { CONSUME_ONCE } from './single-use/index.ts';
import { READ_ORG_CACHE } from './cache/index.ts';
import { FORGET_MEMBER_COUNTS, FORGET_RESOLVE, REMEMBER_MISS, RESOLVE_TENANT } from './tenants/index.ts';

export const LUA_SCRIPTS: readonly LuaScript[] = [
  CREATE_INVITE,
  LIST_INVITES,
  CANCEL_INVITE,
  ACCEPT_INVITE,
  RETURN_INVITE,
  REMOVE_INVITE,
  RECEIPTS_DUE,
  FORGET_RECEIPTS,
  PRUNE_ORG_INDEX,
  PRUNE_EMAIL_INDEXES,
  THROTTLE_HIT,
  TAKE_REFRESH_LOCK,
  STORE_SESSION,
  DELETE_IF_EQUALS,
  COUNT_RECONNECT_FAILURE,
  RESET_SESSION,
  READ_RUNTIME_STATE,
  TAKE_RUN_LOCK,
  SYRVE_HOUSEKEEPING,
  CONSUME_ONCE,
  ISSUE_MFA_CHALLENGE,
  ANSWER_MFA_CHALLENGE,
  RESOLVE_TENANT,
  REMEMBER_MISS,
  FORGET_RESOLVE,
  READ_ORG_CACHE,
  FORGET_MEMBER_COUNTS,
  SET_ACTIVE_CONTEXT,
  DROP_ORG_CONTEXTS,
];
