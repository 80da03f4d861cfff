// Key shapes reserved with no writer yet: the keyspace audit knows them (and judges a value planted there), nothing builds them.
// Giving one a producer means dropping `dataOnly` here; the keyspace then has its builder.
import * as z from 'zod';
import { defineKey } from '../define-key.ts';
import { word } from '../id-segments.ts';
import { json } from '../key-values.ts';
import { platformScope } from '../scopes.ts';

export const reservedKeys = {
  refPlanStatuses: defineKey({
    scope: platformScope,
    domain: 'ref',
    purpose: 'plan-statuses',
    id: [word('all')],
    ttl: { maxSeconds: 3_600 },
    value: json(z.lazy(() => z.array(z.strictObject({ code: z.string().min(1).max(64), label: z.string().max(200) })).max(100))),
    dataOnly: true,
  }),
  sysHealthLastCheck: defineKey({
    scope: platformScope,
    domain: 'sys',
    purpose: 'health',
    id: [word('last-check')],
    ttl: { maxSeconds: 600 },
    value: json(z.lazy(() => z.strictObject({ checkedAtUtc: z.iso.datetime(), stores: z.record(z.string(), z.enum(['ok', 'down'])) }))),
    dataOnly: true,
  }),
};
