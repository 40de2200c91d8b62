/**
 * Runs `task` for each item, at most `concurrency` at a time: a Worker invocation holds at most
 * six connections open, and each D1 query in flight is one.
 */
export async function forEachLimited<T>(items: readonly T[], concurrency: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
}
