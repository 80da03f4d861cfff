// Stands in for `zod` in the deployed bundles. @hono/zod-openapi hands its `z` to `extendZodWithOpenApi` at import,
// which only reads `z.ZodType`, yet passing the whole namespace keeps all of zod's classic API in the bundle. Here `z`
// holds `ZodType` alone; every other export is zod's own (from `zod/v4`, the same modules `zod` re-exports).
import { ZodType } from 'zod/v4';

export * from 'zod/v4';
export const z = { ZodType };
