import { Logger } from '@nestjs/common';
import { withTimeout } from './with-timeout';

/** What a health endpoint says when Postgres does not answer: never the driver's error (addresses, SQL). */
export const DATABASE_UNREACHABLE = 'database unreachable';

/**
 * Health queries against Postgres for the health endpoints, which anyone may call: a failure is answered
 * as `null` (the endpoint says DATABASE_UNREACHABLE), and the error itself goes to the log, once each time
 * it changes, with a line when the database answers again.
 */
export class DatabaseProbe {
  private readonly log = new Logger('Health');
  private failing: string | null = null;

  constructor(
    private readonly db: { query(sql: string): Promise<unknown> },
    private readonly timeoutMs: number,
  ) {}

  async query<T>(sql: string): Promise<T | null> {
    try {
      const rows = (await withTimeout(this.db.query(sql), this.timeoutMs, 'database health query')) as T;
      if (this.failing !== null) this.log.log('database health check: answers again');
      this.failing = null;
      return rows;
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      if (reason !== this.failing) this.log.warn(`database health check failed: ${reason}`);
      this.failing = reason;
      return null;
    }
  }
}
