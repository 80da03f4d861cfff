// Public surface of the Syrve/iiko upstream client (docs/design/syrve.md#syrveiiko-upstream).
export { checkSyrveBaseUrl } from './base-url.ts';
export { createSyrveClient } from './client.ts';
export { passwordSha1Hex } from './password.ts';
export type { CallResult, LoginResult, SyrveStore, SyrveTarget, SyrveUpstream } from './types.ts';
