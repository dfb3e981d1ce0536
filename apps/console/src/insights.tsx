import { useEffect, useMemo, useState } from 'preact/hooks';
import { getJson, type Insights } from './api';
import { CompareAnswers } from './answer-compare';
import { parseInstant } from './as-of';
import { Chart, type ChartData, type Series } from './chart';
import { href, type Route } from './route';

/** Per-project charts show the selected projects, or else this many: the largest by flags in the last week. */
export const DEFAULT_PROJECTS = 8;

const sum = (a: number | null, b: number | undefined | null) =>
  b === undefined || b === null ? a : (a ?? 0) + b;

/** Rows keyed by date → one value per date of `dates` (null where a week has no row). */
function align<T extends { date: string }>(
  dates: string[],
  rows: T[],
  pick: (r: T) => number | undefined | null,
): (number | null)[] {
  const by = new Map<string, number | null>();
  for (const r of rows) by.set(r.date, sum(by.get(r.date) ?? null, pick(r)));
  return dates.map((d) => by.get(d) ?? null);
}

function datesOf(...lists: { date: string }[][]): string[] {
  const s = new Set<string>();
  for (const l of lists) for (const r of l) s.add(r.date);
  return [...s].sort();
}

/** The projects the per-project charts show: the chosen ones, else the largest by flags in the last week. */
export function shownProjects(ins: Insights, chosen: string[]): string[] {
  if (chosen.length > 0) return chosen;
  const last = new Map<string, { date: string; total: number }>();
  for (const r of ins.projectFlagTrends) {
    const l = last.get(r.project);
    if (!l || r.date > l.date) last.set(r.project, { date: r.date, total: r.total });
  }
  return [...last.entries()]
    .sort((a, b) => b[1].total - a[1].total || (a[0] < b[0] ? -1 : 1))
    .slice(0, DEFAULT_PROJECTS)
    .map(([p]) => p)
    .sort();
}

/** Every chart of the Insights page, from the api's answer (pure: the test compares these with the api). */
export function insightCharts(ins: Insights, chosen: string[]): ChartData[] {
  const shown = shownProjects(ins, chosen);
  const which = chosen.length
    ? `Projects: ${shown.join(', ')}.`
    : `The ${shown.length} largest projects by flags (choose others above): ${shown.join(', ')}.`;
  const pft = ins.projectFlagTrends;
  const chosenRows = pft.filter((r) => chosen.includes(r.project));
  const flagRows = chosen.length ? chosenRows : ins.flagTrends;
  const flagDates = datesOf(flagRows);
  const perProject = (
    rows: typeof pft | Insights['metricsSummaryTrends'],
    pick: (r: never) => number | undefined | null,
  ): { dates: string[]; series: Series[] } => {
    const mine = (rows as { project: string; date: string }[]).filter((r) => shown.includes(r.project));
    const dates = datesOf(mine);
    return {
      dates,
      series: shown.map((p) => ({
        label: p,
        values: align(
          dates,
          mine.filter((r) => r.project === p),
          pick as (r: { date: string }) => number,
        ),
      })),
    };
  };
  const health = perProject(pft, (r: { health: number }) => r.health);
  const ttp = perProject(pft, (r: { timeToProduction?: number }) => r.timeToProduction ?? null);
  const requests = perProject(ins.metricsSummaryTrends, (r: { totalRequests: number }) => r.totalRequests);
  const exposures = perProject(ins.metricsSummaryTrends, (r: { totalYes: number }) => r.totalYes);
  const userDates = datesOf(ins.userTrends);
  const envDates = datesOf(ins.environmentTypeTrends);
  const envTypes = [...new Set(ins.environmentTypeTrends.map((r) => r.environmentType))].sort();
  return [
    {
      id: 'flags',
      title: chosen.length ? 'Flags in the chosen projects' : 'Flags',
      unit: 'flags',
      dates: flagDates,
      note: chosen.length ? `Sum over ${chosen.join(', ')}.` : 'Every project you may see.',
      series: (['total', 'active', 'stale', 'potentiallyStale'] as const).map((k) => ({
        label: k === 'potentiallyStale' ? 'potentially stale' : k,
        values: align(flagDates, flagRows, (r) => r[k]),
      })),
    },
    { id: 'health', title: 'Health per project', unit: '% healthy', max: 100, note: which, ...health },
    { id: 'time-to-production', title: 'Time to production per project', unit: 'days', note: which, ...ttp },
    {
      id: 'users',
      title: 'Users',
      unit: 'users',
      dates: userDates,
      note: 'The whole instance (users belong to no project).',
      series: (['total', 'active', 'inactive'] as const).map((k) => ({
        label: k,
        values: align(userDates, ins.userTrends, (r) => r[k]),
      })),
    },
    { id: 'sdk-requests', title: 'SDK requests per project', unit: 'requests', note: which, ...requests },
    {
      id: 'sdk-exposures',
      title: 'Exposures per project',
      unit: 'exposures (yes)',
      note: which,
      ...exposures,
    },
    {
      id: 'environment-updates',
      title: 'Updates per environment type',
      unit: 'updates',
      dates: envDates,
      series: envTypes.map((t) => ({
        label: t,
        values: align(
          envDates,
          ins.environmentTypeTrends.filter((r) => r.environmentType === t),
          (r) => r.totalUpdates,
        ),
      })),
    },
  ];
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export function InsightsPage({ route }: { route: Route }) {
  const from = DAY.test(route.params.get('from') ?? '') ? route.params.get('from')! : '';
  const to = DAY.test(route.params.get('to') ?? '') ? route.params.get('to')! : '';
  const chosen = useMemo(
    () => (route.params.get('projects') ?? '').split(',').filter(Boolean).sort(),
    [route.params.get('projects')],
  );
  const [ins, setIns] = useState<Insights | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    getJson<Insights>(`/api/admin/insights?from=${from}&to=${to}`)
      .then((r) => live && setIns(r))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [from, to]);
  const projects = useMemo(
    () => [...new Set((ins?.projectFlagTrends ?? []).map((r) => r.project))].sort(),
    [ins],
  );
  const charts = useMemo(
    () =>
      ins
        ? insightCharts(
            ins,
            chosen.filter((p) => projects.includes(p)),
          )
        : [],
    [ins, chosen, projects],
  );
  const go = (next: { from?: string; to?: string; projects?: string[] }) => {
    location.hash = href('insights', '', {
      from: next.from ?? from,
      to: next.to ?? to,
      projects: (next.projects ?? chosen).join(','),
    });
  };
  return (
    <>
      <h1>Insights</h1>
      <form
        class="filters card"
        aria-label="Insights filters"
        key={`${from}|${to}|${chosen.join(',')}`}
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          go({
            from: String(f.get('from') ?? ''),
            to: String(f.get('to') ?? ''),
            projects: f.getAll('projects').map(String),
          });
        }}
      >
        <label>
          From <input type="date" name="from" defaultValue={from} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={to} />
        </label>
        <label class="projects">
          Projects (none chosen: the largest {DEFAULT_PROJECTS})
          <select name="projects" multiple size={Math.min(6, Math.max(2, projects.length))}>
            {projects.map((p) => (
              <option key={p} value={p} selected={chosen.includes(p)}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <div class="actions">
          <button type="submit">Apply</button>
          <button type="button" onClick={() => (location.hash = href('insights'))}>
            Reset
          </button>
        </div>
      </form>
      {error && (
        <p role="alert" class="error">
          Could not load the insights: {error}
        </p>
      )}
      {!ins && !error && <p aria-live="polite">Loading insights…</p>}
      <div class="charts">
        {charts.map((c) => (
          <Chart key={c.id} data={c} />
        ))}
      </div>
      <CompareAnswers
        path={`/api/admin/insights?${new URLSearchParams({ ...(from && { from }), ...(to && { to }) }).toString()}`.replace(
          /\?$/,
          '',
        )}
        what="insights"
        t1={parseInstant(route.params.get('t1'))}
        t2={parseInstant(route.params.get('t2'))}
        go={(t1, t2) =>
          (location.hash = href('insights', '', { from, to, projects: chosen.join(','), t1, t2 }))
        }
      />
    </>
  );
}
