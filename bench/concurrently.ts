// Runs an async step for indices 0..count-1 with at most `limit` in flight: fast fixture set-up, and the crowd of callers of a burst bench.
export async function mapConcurrently<T>(count: number, limit: number, step: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await step(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}
