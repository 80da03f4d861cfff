// A passkey as its owner sees it (GET /auth/passkeys and the other routes' answers): never the credential or its key.
import * as z from 'zod';

export const passkeyViewSchema = z.object({
  passkeyId: z.uuid(),
  name: z.string().describe('The name its owner gave it (default "Passkey"); 1–64 characters'),
  createdAt: z.iso.datetime(),
  lastUsedAt: z.iso.datetime().nullable().describe('The last sign-in with it; null before the first'),
  transports: z.array(z.string()).describe('How the browser said it reaches the authenticator (internal, hybrid, usb, …), as it said it'),
});
export type PasskeyView = z.output<typeof passkeyViewSchema>;

/** The columns every passkey answer reads, in the shape `passkeyView` takes. */
export const PASSKEY_VIEW_COLUMNS = 'id, name, created_at, last_used_at, transports';

export interface PasskeyViewRow {
  id: string;
  name: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  transports: string[];
}

export function passkeyView(row: PasskeyViewRow): PasskeyView {
  return {
    passkeyId: row.id,
    name: row.name,
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at).toISOString(),
    transports: row.transports,
  };
}
