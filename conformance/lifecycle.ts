import type { Client } from 'pg';
import { LifecycleReadModel } from '@flaglens/projections';
import type { Stack } from '@flaglens/testing/support/stack';
import { waitFor } from '@flaglens/testing/support/wait-for';
import type { Tally } from './compare';
import type { ScenarioResult, UnleashClient } from './scenario';

/**
 * Flag lifecycle against Unleash 8.x (whose lifecycle routes are stable; 6.x and 7.x keep it behind flags):
 * the stages Unleash files and flaglens derives from the same history.
 */

const GROUP = 'flag lifecycle (8.x)';
/** How far apart the two may date a stage: Unleash files it when it handles the event or the report. */
export const STAGE_TIME_TOLERANCE_MS = 5000;

/** Stage rows Unleash filed this close together came from one announce batch, their order a race. */
const ANNOUNCE_RACE_MS = 1000;

const RACED_ARCHIVE =
  "Unleash's archive listener filed `archived` after the revive's reset; flaglens applies the events in " +
  'order (docs/deviations.md, "Answers across Unleash releases")';

const RACED_ANNOUNCE =
  'Unleash files the stages of events it announces together in listeners that race (its rows within ' +
  `${ANNOUNCE_RACE_MS} ms of one another); flaglens applies the events in order (docs/deviations.md, ` +
  '"Answers across Unleash releases")';

export interface UnleashStage {
  stage: string;
  enteredStageAt: string;
}

/**
 * More lifecycle than the shared scenario has: a flag completed (kept), one completed then uncompleted, and
 * SDK reports in production for a flag enabled there (live) and one that is not (pre-live); then the SDK
 * buffers flushed and the overview's jobs run again (the overview compares their results).
 */
export async function driveLifecycle(
  u: UnleashClient,
  s: ScenarioResult,
  log: (m: string) => void,
): Promise<void> {
  const A = s.users[0].pat;
  const flagPath = (f: string) => `/api/admin/projects/default/features/${f}/lifecycle`;
  await u.post(`${flagPath('perm.beta-access')}/complete`, { status: 'kept' }, A);
  await u.post(`${flagPath('experiment.pricing')}/complete`, { status: 'discarded' }, A);
  await u.post(`${flagPath('experiment.pricing')}/uncomplete`, {}, A);
  const prodToken = (
    await u.post(
      '/api/admin/api-tokens',
      { tokenName: 'web-prod', type: 'client', environment: 'production', projects: ['default'] },
      A,
    )
  ).json as { secret: string };
  await u.post(
    '/api/client/metrics',
    {
      appName: 'checkout-web',
      instanceId: 'web-prod-1',
      environment: 'production',
      bucket: {
        start: new Date(Date.now() - 60_000).toISOString(),
        stop: new Date().toISOString(),
        toggles: {
          'checkout.new-flow': { yes: 12, no: 3 },
          'kill.payments-provider': { yes: 0, no: 5 },
        },
      },
    },
    prodToken.secret,
  );
  await u.post('/api/admin/harness/flush', {}, A);
  // Unleash files the stages of a report in a listener of the flush, not awaited by it
  await waitFor(
    'Unleash filed the live stage',
    async () =>
      ((await u.get(flagPath('checkout.new-flow'), A)).json as UnleashStage[]).some(
        (x) => x.stage === 'live',
      ),
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  await u.post('/api/admin/harness/jobs', {}, A);
  log('lifecycle: 1 flag completed, 1 completed and uncompleted, production reports of 2 flags');
}

/**
 * Every flag's stages (names in order, each time within STAGE_TIME_TOLERANCE_MS) and the stage counts of
 * `GET /api/admin/lifecycle/count`, flaglens's derived from its lifecycle projection (it serves neither route).
 */
export async function compareLifecycle(
  t: Tally,
  u: UnleashClient,
  unleashDb: Client,
  stack: Stack,
  s: ScenarioResult,
  log: (m: string) => void,
): Promise<void> {
  const A = s.users[0].pat;
  const model = new LifecycleReadModel(stack.db);
  const features = (
    await unleashDb.query<{ name: string; project: string; archived: boolean }>(
      `SELECT name, project, archived_at IS NOT NULL AS archived FROM features ORDER BY name`,
    )
  ).rows;
  let maxDelta = 0;
  const seen = new Map<string, number>();
  const names = (xs: { stage: string }[]) => xs.map((x) => x.stage);
  for (const f of features) {
    const path = `/api/admin/projects/${f.project}/features/${encodeURIComponent(f.name)}/lifecycle`;
    const filed = (await u.get(path, A)).json as UnleashStage[];
    const fl = (await model.stages(f.name)) ?? [];
    // Unleash files `archived` and a revive's reset in listeners that race: a flag revived right after its
    // archive can keep an `archived` row the reset did not see yet (it then counts by its later stages)
    const ul = f.archived ? filed : filed.filter((x) => x.stage !== 'archived');
    if (ul.length !== filed.length)
      t.differ(GROUP, {
        what: f.name,
        field: 'stages of every flag, in order',
        unleash: names(filed),
        flaglens: names(fl),
        reason: RACED_ARCHIVE,
      });
    else if (JSON.stringify(names(ul)) === JSON.stringify(names(fl)))
      t.match(GROUP, 'stages of every flag, in order');
    else if (racedInOneAnnounce(ul, names(fl)))
      t.differ(GROUP, {
        what: f.name,
        field: 'stages of every flag, in order',
        unleash: names(ul),
        flaglens: names(fl),
        reason: RACED_ANNOUNCE,
      });
    else
      t.differ(GROUP, {
        what: f.name,
        field: 'stages of every flag, in order',
        unleash: names(ul),
        flaglens: names(fl),
      });
    for (const x of fl) seen.set(x.stage, (seen.get(x.stage) ?? 0) + 1);
    const deltas = ul.map((x, i) =>
      fl[i] ? Math.abs(Date.parse(x.enteredStageAt) - Date.parse(fl[i].enteredAt)) : Number.POSITIVE_INFINITY,
    );
    const worst = Math.max(0, ...deltas);
    maxDelta = Math.max(maxDelta, Number.isFinite(worst) ? worst : 0);
    if (worst <= STAGE_TIME_TOLERANCE_MS)
      t.match(GROUP, `each stage's time, within ${STAGE_TIME_TOLERANCE_MS} ms`);
    else
      t.differ(GROUP, {
        what: f.name,
        field: `each stage's time, within ${STAGE_TIME_TOLERANCE_MS} ms`,
        unleash: ul.map((x) => x.enteredStageAt),
        flaglens: fl.map((x) => x.enteredAt),
      });
  }
  const uc = (await u.get('/api/admin/lifecycle/count', A)).json as Record<string, number>;
  const fc = await model.stageCounts();
  for (const key of Object.keys(fc) as (keyof typeof fc)[]) {
    if (uc[key] === fc[key]) t.match(GROUP, `GET /api/admin/lifecycle/count ${key}`);
    else
      t.differ(GROUP, {
        what: 'count',
        field: `GET /api/admin/lifecycle/count ${key}`,
        unleash: uc[key],
        flaglens: fc[key],
      });
  }
  log(
    `compared the lifecycle of ${features.length} flags (stages: ${[...seen].map(([k, n]) => `${k} ${n}`).join(', ')}; ` +
      `largest time difference ${maxDelta} ms) and the stage counts ${JSON.stringify(fc)}`,
  );
}

/**
 * True when Unleash filed the same stages as flaglens, and every stage it put in another place was filed within
 * ANNOUNCE_RACE_MS of the others so placed: its `created_at` is the listener's clock, and the listeners of
 * events announced in one batch (a flag created and archived between two announce runs) insert concurrently.
 */
export function racedInOneAnnounce(ul: UnleashStage[], fl: string[]): boolean {
  if (ul.length !== fl.length) return false;
  if ([...ul.map((x) => x.stage)].sort().join() !== [...fl].sort().join()) return false;
  const moved = ul.filter((x, i) => x.stage !== fl[i]).map((x) => Date.parse(x.enteredStageAt));
  return Math.max(...moved) - Math.min(...moved) <= ANNOUNCE_RACE_MS;
}
