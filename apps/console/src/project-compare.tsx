import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import { fromInputValue, showInstant, toInputValue } from './as-of';
import {
  CHANGE_KINDS,
  changesBetween,
  countByKind,
  readOlder,
  type Change,
  type ProjectEvent,
} from './project-changes';
import { href } from './route';

const LIMIT = 1000;
/** at most this many events are read for one comparison (20 calls of the search route) */
const MAX_PAGES = 20;

/** The day before `t1`'s (UTC): the search's `from` is a day in Postgres's zone, so one day earlier is safe. */
function dayBefore(t1: string): string {
  return new Date(Date.parse(t1) - 86_400_000).toISOString().slice(0, 10);
}

/** The project's events in (t1, t2]: the search (newest first, `at=t2`) read a page at a time back to t1. */
async function eventsBetween(
  project: string,
  t1: string,
  t2: string,
): Promise<{ events: ProjectEvent[]; complete: boolean }> {
  const events: ProjectEvent[] = [];
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({
      project: `IS:${project}`,
      from: `IS:${dayBefore(t1)}`,
      offset: String(page * LIMIT),
      limit: String(LIMIT),
      at: t2,
    });
    const r = await getJson<{ events: ProjectEvent[] }>(`/api/admin/search/events?${q.toString()}`);
    events.push(...r.events);
    if (!readOlder(r.events, LIMIT, t1)) return { events, complete: true };
  }
  return { events, complete: false };
}

/**
 * "Compare two instants": the flags added, enabled or disabled per environment, archived, revived, deleted,
 * moved, and the member changes of a project between T1 and T2, each linked to its event. T1 and T2 are in
 * the URL (`t1`, `t2`) with the page's other parameters (`keep`).
 */
export function CompareInstants({
  project,
  t1,
  t2,
  keep,
}: {
  project: string;
  t1?: string;
  t2?: string;
  keep: Record<string, string | undefined>;
}) {
  const [answer, setAnswer] = useState<{ changes: Change[]; complete: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ordered = !!t1 && !!t2 && Date.parse(t1) < Date.parse(t2);
  useEffect(() => {
    setAnswer(null);
    setError(null);
    if (!t1 || !t2 || !ordered) return;
    let live = true;
    eventsBetween(project, t1, t2)
      .then(
        (r) =>
          live && setAnswer({ changes: changesBetween(r.events, project, t1, t2), complete: r.complete }),
      )
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [project, t1, t2, ordered]);
  const counts = answer && countByKind(answer.changes);
  return (
    <section class="compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two instants</h2>
      <form
        class="card filters"
        aria-label="Compare two instants"
        key={`${t1}|${t2}`}
        onSubmit={(e) => {
          e.preventDefault();
          const data = new FormData(e.currentTarget);
          const from = fromInputValue(String(data.get('t1') ?? ''));
          const to = fromInputValue(String(data.get('t2') ?? '')) ?? new Date().toISOString();
          location.hash = href('project', project, { ...keep, t1: from, t2: to });
        }}
      >
        <label>
          From T1 (UTC){' '}
          <input type="datetime-local" name="t1" step="1" required defaultValue={toInputValue(t1)} />
        </label>
        <label>
          To T2 (UTC) <input type="datetime-local" name="t2" step="1" defaultValue={toInputValue(t2)} />
        </label>
        <div class="actions">
          <button type="submit" data-compare="go">
            Compare
          </button>
        </div>
        <p class="muted">T2 empty: now. The changes are the project’s events after T1 and up to T2.</p>
      </form>
      {t1 && t2 && !ordered && (
        <p role="alert" class="error">
          T1 must be before T2.
        </p>
      )}
      {error && (
        <p role="alert" class="error">
          Could not compare: {error}
        </p>
      )}
      {ordered && !answer && !error && <p aria-live="polite">Reading the events…</p>}
      {answer && counts && (
        <>
          <p aria-live="polite" class="compare-info" data-changes={answer.changes.length}>
            Between {showInstant(t1!)} and {showInstant(t2!)}: {answer.changes.length} change
            {answer.changes.length === 1 ? '' : 's'}
            {answer.changes.length > 0 &&
              ` (${CHANGE_KINDS.filter((k) => counts[k.kind] > 0)
                .map((k) => `${counts[k.kind]} ${k.title}`)
                .join(', ')})`}
            .
            {!answer.complete &&
              ` Only the newest ${LIMIT * MAX_PAGES} events were read; older changes are missing.`}
          </p>
          {answer.changes.length > 0 && (
            <table class="changes">
              <caption class="visually-hidden">
                Changes of the project between T1 and T2, oldest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">when (UTC)</th>
                  <th scope="col">change</th>
                  <th scope="col">flag</th>
                  <th scope="col">environment</th>
                  <th scope="col">by</th>
                  <th scope="col">event</th>
                </tr>
              </thead>
              <tbody>
                {answer.changes.map((c) => (
                  <tr key={c.eventId} data-kind={c.kind} data-event-id={c.eventId}>
                    <td>
                      <time dateTime={c.createdAt}>{showInstant(c.createdAt).replace(' UTC', '')}</time>
                    </td>
                    <td>{c.kind === 'member' ? c.type : c.kind}</td>
                    <td>{c.flag ? <a href={href('flag', c.flag, { at: t2 })}>{c.flag}</a> : '–'}</td>
                    <td>{c.environment ?? '–'}</td>
                    <td>{c.createdBy}</td>
                    <td>
                      <a href={href('events', '', { id: String(c.eventId) })} data-event-link>
                        #{c.eventId}
                        <span class="visually-hidden"> ({c.type})</span>
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
