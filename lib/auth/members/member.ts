// A member as the member routes show it: one role assignment of the organisation, with the user's email.
import * as z from 'zod';
import { ROLE_CODES } from '../../keys/index.ts';

/** One item per role assignment: a user holding an organisation-wide role and Outlet roles appears once for each. */
export const memberSchema = z.object({
  userId: z.uuid(),
  email: z.string(),
  roleCode: z.enum(ROLE_CODES),
  /** The Outlet the role holds at; null: the whole organisation. */
  locationId: z.uuid().nullable(),
  /** When this role was granted (ISO 8601, milliseconds). */
  joinedAt: z.iso.datetime(),
});

export type Member = z.infer<typeof memberSchema>;

/** The SQL of `joinedAt`: a timestamptz as ISO 8601 UTC, to the millisecond (`MS`) or, for a cursor, the microsecond (`US`). */
export const isoUtc = (column: string, precision: 'MS' | 'US') =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.${precision}"Z"')`;
