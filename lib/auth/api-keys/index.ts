// apiKeys: an organisation's keys for machine clients as its admins manage them (docs/design/api-keys.md).
import { createApiKey } from './create-api-key.ts';
import { listApiKeys } from './list-api-keys.ts';
import { readApiKey } from './read-api-key.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import { rollApiKey } from './roll-api-key.ts';
import { updateApiKey } from './update-api-key.ts';

export const apiKeys = {
  create: createApiKey,
  list: listApiKeys,
  read: readApiKey,
  update: updateApiKey,
  revoke: revokeApiKey,
  roll: rollApiKey,
};
export { apiKeySchema } from './api-key.ts';
export { apiKeyScopesSchema } from './scopes.ts';
export { API_KEY_MAX_OVERLAP_SECONDS } from './roll-api-key.ts';
