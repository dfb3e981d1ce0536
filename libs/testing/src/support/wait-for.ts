/** Polls `probe` until it returns a truthy value, or fails after `timeoutMs` with the last value seen. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T>,
  { timeoutMs = 60000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
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
