// oidc-provider's own in-memory adapter, which @types/oidc-provider does not describe: passed explicitly (local/oidc/provider.ts),
// it stores the same way as the default, one store per provider, without the default's "development-only" warning.
declare module 'oidc-provider/lib/adapters/memory_adapter.js' {
  import type { AdapterFactory } from 'oidc-provider';

  export function createMemoryAdapter(clockTolerance?: number): AdapterFactory;
}
