import type { PoolClient } from 'pg';
import type { Database } from '@flaglens/persistence';

/**
 * The connection of a background job of the projector, taken from the pool for each run, whose backend a
 * shutdown can cancel (a VACUUM or a flush of a large index can take minutes; the next start redoes it).
 */
export class CancellableConnection {
  private backend?: number;

  constructor(private readonly db: Database) {}

  /**
   * `job` on a connection of the pool; the connection goes back to the pool after, or is closed when the job
   * failed or `discard` says so (the shutdown may have cancelled it).
   */
  async run<T>(job: (client: PoolClient) => Promise<T>, discard: () => boolean): Promise<T> {
    let client: PoolClient | undefined;
    let failed = false;
    try {
      client = await this.db.connect();
      this.backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      return await job(client);
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      this.backend = undefined;
      client?.release(failed || discard() || undefined);
    }
  }

  /** Cancels the statement of the run in progress, if any. */
  async cancel(): Promise<void> {
    if (this.backend !== undefined)
      await this.db.query('SELECT pg_cancel_backend($1)', [this.backend]).catch(() => undefined);
  }
}
