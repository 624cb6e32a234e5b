// One readiness check as /readyz reports it (the api's and the worker's): 'ok',
// or `unavailable: <first line of the reason>` when the dependency failed or
// did not answer within HEALTH_CHECK_TIMEOUT_MS. A probe never hangs and
// never throws.

/** How long one dependency check may take before it counts as unavailable. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;

export async function probe(fn: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_CHECK_TIMEOUT_MS} ms`)), HEALTH_CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([fn(), timeout]);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
  } finally {
    clearTimeout(timer);
  }
}
