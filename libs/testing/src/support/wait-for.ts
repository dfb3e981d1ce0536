/**
 * Polls `probe` until it returns a truthy value, or fails after `timeoutMs` with the last value seen. `hopeless`,
 * asked before each probe, names a reason the value can no longer come (a process it waits for has exited):
 * the wait fails at once with it.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  {
    timeoutMs = 60000,
    intervalMs = 200,
    hopeless,
  }: { timeoutMs?: number; intervalMs?: number; hopeless?: () => string | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    const reason = hopeless?.();
    if (reason) throw new Error(`gave up waiting for ${what}: ${reason}`);
    try {
      last = await probe();
      if (last) return last;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out waiting for ${what}; last value ${JSON.stringify(last)}${lastError ? `, last error ${String(lastError)}` : ''}`,
  );
}
