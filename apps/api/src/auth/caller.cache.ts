import { Injectable } from '@nestjs/common';
import { IDENTITY_READS } from '@flaglens/projections';
import { ChangeDroppedCache } from '../read-db/change-dropped.cache';
import { ChangeListener } from '../read-db/change-listener.service';
import { ProjectionReads } from '../read-db/projection-reads.service';

/** No credential-derived entry outlives this: revocation takes effect within it even when notices are lost. */
export const CREDENTIAL_MAX_AGE_MS = 30_000;
/** How long an unknown token is remembered as unknown (a flood of bad tokens does not reach the database). */
export const UNKNOWN_TOKEN_TTL_MS = 1_000;
/** The memory its entries may take, keys included (a caller cannot grow it with long values). */
const MAX_BYTES = 16 * 1024 * 1024;

/** The size of a cached value, roughly: strings by length, arrays by their strings. */
function approximateBytes(v: unknown): number {
  if (typeof v === 'string') return v.length * 2;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + approximateBytes(x) + 16, 16);
  if (typeof v === 'object' && v !== null && 'bytes' in v && Buffer.isBuffer(v.bytes))
    return v.bytes.length + 128;
  return 16;
}

/**
 * What the api looks up about the caller on every request (the owner of a token, the private projects they
 * may not see, their profile): dropped when a batch or a revocation changes identity, never older than
 * CREDENTIAL_MAX_AGE_MS; an unknown token is remembered for UNKNOWN_TOKEN_TTL_MS when asked to.
 */
@Injectable()
export class CallerCache {
  private readonly cache: ChangeDroppedCache<unknown>;

  constructor(changes: ChangeListener, reads: ProjectionReads) {
    this.cache = new ChangeDroppedCache<unknown>(changes, reads, {
      maxBytes: MAX_BYTES,
      sizeOf: approximateBytes,
      reads: IDENTITY_READS,
      maxAgeMs: CREDENTIAL_MAX_AGE_MS,
    });
  }

  /** The cached value of `key` if there is one (null: remembered as not found), never loading it. */
  peek<T>(key: string): T | null | undefined {
    return this.cache.get(key) as T | null | undefined;
  }

  /**
   * The cached value of `key`, else `load()` (kept until `until` ms since the epoch if sooner than the maximum
   * age). A null load is kept only with `rememberNotFoundMs`.
   */
  async get<T>(
    key: string,
    load: () => Promise<{ value: T; until?: number } | null>,
    rememberNotFoundMs = 0,
  ): Promise<T | null> {
    const now = Date.now();
    const value = await this.cache.getOrLoad(
      key,
      async () => {
        const loaded = await load();
        if (loaded === null)
          return { value: null, validUntil: now + rememberNotFoundMs, keep: rememberNotFoundMs > 0 };
        return { value: loaded.value, validUntil: loaded.until ?? null };
      },
      now,
    );
    return value as T | null;
  }
}
