// Stands in for zod's bundle of 60+ message locales in the Workers build: zod configures English itself, we never
// switch locale, and @hono/zod-openapi's `import { z } from 'zod'` would otherwise pull every locale in (~250 KiB).
export {};
