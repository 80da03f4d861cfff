// The software authenticator (local/stack/passkey-authenticator.ts) for the relying party every test app is configured with.
import { SoftwarePasskey } from '../../local/stack/passkey-authenticator.ts';
import { TEST_PASSKEY_ORIGIN, TEST_PASSKEY_RP_ID } from './fixtures.ts';

export type { CeremonyBends, RegistrationOptions, SoftwarePasskey } from '../../local/stack/passkey-authenticator.ts';

/** A fresh credential for runstate.test; its counter starts at `counter` (0: an authenticator that keeps none). */
export const testPasskey = (options: { counter?: number } = {}): Promise<SoftwarePasskey> =>
  SoftwarePasskey.create({ rpId: TEST_PASSKEY_RP_ID, origin: TEST_PASSKEY_ORIGIN, ...options });
