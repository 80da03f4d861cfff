// Request schemas of the console's own routes (the API routes it forwards validate their own).
import * as z from 'zod';

/** The second sign-in step; the code's format is the API's to judge (POST /auth/mfa/verify). */
export const mfaCodeBody = z.strictObject({ code: z.string().min(1).max(16) });
