import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import { parseInstant } from './as-of';
import { CompareInstants } from './project-compare';
import { href, type Route } from './route';
import { TimeControl } from './time-control';

interface Overview {
  name: string;
  description: string | null;
  mode?: string;
  health?: number;
  members?: number;
  featureTypeCounts?: { type: string; count: number }[];
  environments?: {
    environment: string;
    changeRequestsEnabled?: boolean;
    defaultStrategy?: {
      name: string;
      title?: string | null;
      disabled?: boolean | null;
      constraints?: unknown[];
      parameters?: Record<string, string>;
      segments?: number[];
    };
  }[];
  onboardingStatus: { status: string };
  updatedAt?: string | null;
  stats?: Record<string, number>;
}

/** Current window against the past one, with the change (the stats of the overview). */
export const WINDOWS: { title: string; current: string; past?: string }[] = [
  { title: 'Flags created', current: 'createdCurrentWindow', past: 'createdPastWindow' },
  { title: 'Flags archived', current: 'archivedCurrentWindow', past: 'archivedPastWindow' },
  {
    title: 'Project activity (events)',
    current: 'projectActivityCurrentWindow',
    past: 'projectActivityPastWindow',
  },
  { title: 'Members added', current: 'projectMembersAddedCurrentWindow' },
  { title: 'Average time to production (days)', current: 'avgTimeToProdCurrentWindow' },
];

function change(cur: number, past: number): string {
  const d = cur - past;
  return d === 0 ? 'no change' : `${d > 0 ? '+' : '−'}${Math.abs(d)}`;
}

function Card({ title, id, children }: { title: string; id: string; children: preact.ComponentChildren }) {
  return (
    <section class="card stat" aria-labelledby={`card-${id}`} data-card={id}>
      <h2 id={`card-${id}`}>{title}</h2>
      {children}
    </section>
  );
}

export function ProjectPage({ route }: { route: Route }) {
  const [projects, setProjects] = useState<{ id: string; name: string | null }[]>([]);
  const [ov, setOv] = useState<Overview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const id = route.arg;
  const at = parseInstant(route.params.get('at'));
  const t1 = parseInstant(route.params.get('t1'));
  const t2 = parseInstant(route.params.get('t2'));
  const view = { at, t1, t2 };
  useEffect(() => {
    getJson<{ projects: { id: string; name: string | null }[] }>('/api/admin/console/projects')
      .then((r) => setProjects(r.projects))
      .catch((e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    if (!id) return;
    let live = true;
    setOv(null);
    setError(null);
    const asOf = at ? `?at=${encodeURIComponent(at)}` : '';
    getJson<Overview>(`/api/admin/projects/${encodeURIComponent(id)}/overview${asOf}`)
      .then((r) => live && setOv(r))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [id, at]);
  const s = ov?.stats ?? {};
  return (
    <>
      <h1>Project {ov ? <q>{ov.name}</q> : id && <code>{id}</code>}</h1>
      <form class="card filters" aria-label="Choose a project" onSubmit={(e) => e.preventDefault()}>
        <label>
          Project{' '}
          <select
            name="project"
            value={id}
            onChange={(e) => (location.hash = href('project', e.currentTarget.value, view))}
          >
            <option value="">Choose…</option>
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name && p.name !== p.id ? `${p.name} (${p.id})` : p.id}
              </option>
            ))}
          </select>
        </label>
      </form>
      {id && (
        <TimeControl at={at} go={(next) => (location.hash = href('project', id, { ...view, at: next }))} />
      )}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {id && !ov && !error && <p aria-live="polite">Loading the overview…</p>}
      {ov && (
        <div class="cards">
          {WINDOWS.map((w) => (
            <Card title={w.title} id={w.current} key={w.current}>
              <p class="big" data-value={s[w.current]}>
                {s[w.current] ?? '–'}
              </p>
              {w.past && (
                <p class="muted">
                  past window <span data-value={s[w.past]}>{s[w.past] ?? '–'}</span>,{' '}
                  <span class="change">{change(s[w.current] ?? 0, s[w.past] ?? 0)}</span>
                </p>
              )}
            </Card>
          ))}
          <Card title="Health" id="health">
            <p class="big" data-value={ov.health}>
              {ov.health ?? '–'}%
            </p>
            <meter
              min={0}
              max={100}
              low={50}
              high={80}
              optimum={100}
              value={ov.health ?? 0}
              aria-label="Health"
            />
          </Card>
          <Card title="Members" id="members">
            <p class="big" data-value={ov.members}>
              {ov.members ?? '–'}
            </p>
          </Card>
          <Card title="Onboarding" id="onboarding">
            <p class="big" data-value={ov.onboardingStatus.status}>
              {ov.onboardingStatus.status}
            </p>
            <p class="muted">mode {ov.mode ?? '–'}</p>
          </Card>
          <Card title="Flag types" id="feature-types">
            <ul class="plain">
              {(ov.featureTypeCounts ?? []).map((t) => (
                <li key={t.type} data-type={t.type} data-value={t.count}>
                  {t.type}: <strong>{t.count}</strong>
                </li>
              ))}
              {(ov.featureTypeCounts ?? []).length === 0 && <li class="muted">No flags.</li>}
            </ul>
          </Card>
          <Card title="Environments" id="environments">
            <ul class="plain">
              {(ov.environments ?? []).map((e) => (
                <li key={e.environment} data-environment={e.environment}>
                  <strong>{e.environment}</strong>
                  {e.changeRequestsEnabled ? ' (change requests)' : ''}: default strategy{' '}
                  {e.defaultStrategy ? (
                    <>
                      <code>{e.defaultStrategy.name}</code>
                      {e.defaultStrategy.title ? ` “${e.defaultStrategy.title}”` : ''}
                      {e.defaultStrategy.disabled ? ' (disabled)' : ''}
                      {Object.keys(e.defaultStrategy.parameters ?? {}).length > 0 && (
                        <span class="muted">
                          {' '}
                          {Object.entries(e.defaultStrategy.parameters ?? {})
                            .map(([k, v]) => `${k}=${v}`)
                            .join(', ')}
                        </span>
                      )}
                      {(e.defaultStrategy.constraints ?? []).length > 0 &&
                        `, ${e.defaultStrategy.constraints!.length} constraint(s)`}
                    </>
                  ) : (
                    <span class="muted">none</span>
                  )}
                </li>
              ))}
            </ul>
          </Card>
        </div>
      )}
      {id && <CompareInstants project={id} t1={t1} t2={t2} keep={{ at }} />}
      {!id && <p>Choose a project to see its overview.</p>}
    </>
  );
}
