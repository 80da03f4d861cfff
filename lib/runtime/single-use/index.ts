// singleUse: password-reset tokens, SSO handoff codes and OIDC state — issued under their hash, consumed exactly once.
import { consumeOnce } from './consume-once.ts';
import { issueToken } from './issue-token.ts';
import { peekToken } from './peek-token.ts';

export const singleUse = { issue: issueToken, consume: consumeOnce, peek: peekToken };
