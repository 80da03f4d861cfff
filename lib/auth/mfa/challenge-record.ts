// The two values a password step leaves for the MFA step, declared with their keys (lib/keys/defs/mfa.ts).
export { challengeRecord, sessionStateRecord, type ChallengeRecord, type SessionStateRecord } from '../../keys/index.ts';
