// Request validation failures as `400 VALIDATION_FAILED`, naming fields and rules but never echoing submitted values.
import type { Hook } from '@hono/zod-openapi';
import type * as z from 'zod';
import { errors } from './app-error.ts';
import type { HonoEnv } from './hono-env.ts';

export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join('.') : 'request';
      if (issue.code === 'unrecognized_keys')
        return `${path}: unknown field(s) ${issue.keys.map((k) => JSON.stringify(k.slice(0, 40))).join(', ')}`;
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}

export const validationHook: Hook<unknown, HonoEnv, string, unknown> = (result) => {
  if (!result.success) throw errors.VALIDATION_FAILED(describeIssues(result.error.issues));
};
