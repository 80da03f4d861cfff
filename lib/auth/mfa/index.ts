// mfa: the challenge between password and code (registry rows mfaChallenge, authSessionState, mfaTotpUsed).
import { answerChallenge } from './answer-challenge.ts';
import { issueChallenge } from './issue-challenge.ts';
import { burnTotpStep } from './burn-step.ts';

export const mfa = { issueChallenge, answerChallenge, burnTotpStep };
export { readChallengeToken } from './challenge-token.ts';
export { TOTP_DRIFT_STEPS } from './policy.ts';
