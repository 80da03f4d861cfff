// The rate limiter counts every authenticated request, refused ones too (docs/design/limits.md#api-rate-limits): where a
// test asserts what an operation wrote, or that a refusal wrote nothing, the limiter's counters and plan entry are not it.
const LIMITER_KEY = /:ratelimit:counter:|:cache:rate-limits:/;

export function withoutLimiterKeys(keys: string[]): string[] {
  return keys.filter((key) => !LIMITER_KEY.test(key));
}
