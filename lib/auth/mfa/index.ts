// mfa: the challenge between password and code (registry rows mfaChallenge, authSessionState, mfaTotpUsed).
import { answerChallenge } from './answer-challenge.ts';
import { issueChallenge } from './issue-challenge.ts';
import { burnTotpStep } from './burn-step.ts';

export const mfa = { issueChallenge, answerChallenge, burnTotpStep };
export { ANSWER_MFA_CHALLENGE } from './answer-challenge.ts';
export { ISSUE_MFA_CHALLENGE } from './issue-challenge.ts';
export { readChallengeToken } from './challenge-token.ts';
export { TOTP_DRIFT_STEPS } from './policy.ts';
