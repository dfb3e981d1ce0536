import { OverviewReference } from '@flaglens/testing/overview-reference';
import { rowsVia, type ActiveVersionPool } from '@flaglens/persistence';
import {
  EventLogReadModel,
  IdentityProjectAccessReader,
  IdentityReadModel,
  LifecycleReadModel,
} from '@flaglens/projections';

/**
 * What the api would answer for every given flag, project and user, and the lifecycle summary, read from the
 * active projection version the way the api reads it (rebuild and chaos runs compare these before and after).
 */
export async function allAnswers(
  reads: ActiveVersionPool,
  o: { flags: string[]; projects: string[]; users: number[]; now: Date },
): Promise<Map<string, string>> {
  await reads.refresh();
  const events = new EventLogReadModel(reads);
  const identity = new IdentityReadModel(rowsVia(reads));
  const overview = new OverviewReference(rowsVia(reads), new IdentityProjectAccessReader(identity));
  const out = new Map<string, string>();
  for (const f of o.flags) out.set(`events:${f}`, JSON.stringify(await events.eventsOfFlag(f)));
  for (const p of o.projects) out.set(`overview:${p}`, JSON.stringify(await overview.overview(p, o.now, 1)));
  for (const u of o.users) out.set(`profile:${u}`, JSON.stringify(await identity.profile(u)));
  const lifecycle = await new LifecycleReadModel(rowsVia(reads)).summary(o.now, null);
  out.set('lifecycle', JSON.stringify(lifecycle.body));
  return out;
}
