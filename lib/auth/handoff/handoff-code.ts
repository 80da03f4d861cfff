// What a handoff code stands for while it lives (60 s): the session being handed over and the app it is handed to.
import * as z from 'zod';

export const handoffSchema = z.strictObject({
  userId: z.uuid(),
  sessionId: z.uuid(),
  email: z.email().max(254),
  audience: z.string().min(1).max(63),
  issuedAtUtc: z.iso.datetime(),
  correlationId: z.string().min(1).max(128),
});
