import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, type EventPage, type FeatureEvent } from './api';
import { diff } from './diff';
import { href, type Route } from './route';

const PAGE = 50;

interface FlagName {
  name: string;
  project: string;
  archived: boolean;
}

/** Search with suggestions (a datalist fed by the api as one types), then the flag's events. */
function FlagSearch({ current }: { current: string }) {
  const [q, setQ] = useState(current);
  const [names, setNames] = useState<FlagName[]>([]);
  useEffect(() => setQ(current), [current]);
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      getJson<{ flags: FlagName[] }>(`/api/admin/console/flags?q=${encodeURIComponent(q)}&limit=20`)
        .then((r) => live && setNames(r.flags))
        .catch(() => live && setNames([]));
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [q]);
  return (
    <form
      role="search"
      class="card search"
      onSubmit={(e) => {
        e.preventDefault();
        if (q.trim()) location.hash = href('flag', q.trim());
      }}
    >
      <label for="flag-q">Flag name</label>
      <input
        id="flag-q"
        type="search"
        list="flag-suggestions"
        autocomplete="off"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        placeholder="Type part of a flag's name"
      />
      <datalist id="flag-suggestions">
        {names.map((n) => (
          <option key={n.name} value={n.name}>
            {n.project}
            {n.archived ? ' (archived)' : ''}
          </option>
        ))}
      </datalist>
      <button type="submit">Show history</button>
      {names.length > 0 && (
        <ul class="suggestions" aria-label="Matching flags">
          {names.slice(0, 8).map((n) => (
            <li key={n.name}>
              <a href={href('flag', n.name)}>{n.name}</a> <span class="muted">{n.project}</span>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

function EventItem({ e }: { e: FeatureEvent }) {
  const d = diff(e.preData, e.data);
  return (
    <li class="event card" data-event-id={e.id}>
      <div class="event-head">
        <strong class="type">{e.type}</strong>
        <time dateTime={e.createdAt}>{e.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>
        <span>
          by <span class="who">{e.createdBy}</span>
        </span>
        {e.environment && <span class="badge env">env {e.environment}</span>}
        {e.project && <span class="badge">project {e.project}</span>}
        {(e.tags ?? []).map((t) => (
          <span class="badge tag" key={`${t.type}:${t.value}`}>
            {t.type}:{t.value}
          </span>
        ))}
        <span class="muted">#{e.id}</span>
      </div>
      {d.lines.length > 0 ? (
        <table class="diff">
          <caption class="visually-hidden">Changes of event {e.id}</caption>
          <thead>
            <tr>
              <th scope="col">field</th>
              <th scope="col">before</th>
              <th scope="col">after</th>
            </tr>
          </thead>
          <tbody>
            {d.lines.map((l) => (
              <tr key={l.path} class={l.kind}>
                <th scope="row">
                  <code>{l.path}</code>
                </th>
                <td>{l.before !== undefined ? <del>{l.before}</del> : <span class="muted">—</span>}</td>
                <td>{l.after !== undefined ? <ins>{l.after}</ins> : <span class="muted">removed</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">No data before or after (preData and data are empty).</p>
      )}
      {d.truncated && <p class="muted">Only the first changes are shown.</p>}
    </li>
  );
}

/**
 * The flag's events newest first, a page at a time (keyset pages from the api, so a 100k-event flag costs
 * one page of DOM and of transfer, never the whole history).
 */
function History({ name }: { name: string }) {
  const [cursors, setCursors] = useState<string[]>(['']);
  const [page, setPage] = useState<EventPage | null>(null);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const top = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    setCursors(['']);
    setTotal(null);
  }, [name]);
  const cursor = cursors[cursors.length - 1];
  useEffect(() => {
    let live = true;
    setError(null);
    getJson<EventPage>(
      `/api/admin/console/flags/${encodeURIComponent(name)}/events?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`,
    )
      .then((r) => {
        if (!live) return;
        setPage(r);
        if (r.totalEvents !== null) setTotal(r.totalEvents);
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [name, cursor]);
  const first = (cursors.length - 1) * PAGE;
  const move = (next: string[]) => {
    setCursors(next);
    top.current?.focus();
  };
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title" tabIndex={-1} ref={top}>
        Events of <code>{name}</code>
      </h2>
      {error && (
        <p role="alert" class="error">
          Could not load the events: {error}
        </p>
      )}
      {page && (
        <>
          <p aria-live="polite" class="page-info">
            {total === 0
              ? 'No events (an unknown flag, or one you may not see).'
              : `Events ${first + 1}–${first + page.events.length} of ${total ?? '…'}, newest first.`}
          </p>
          <ol class="events">
            {page.events.map((e) => (
              <EventItem e={e} key={e.id} />
            ))}
          </ol>
          <nav class="pager" aria-label="Event pages">
            <button type="button" disabled={cursors.length === 1} onClick={() => move([''])}>
              Newest
            </button>
            <button type="button" disabled={cursors.length === 1} onClick={() => move(cursors.slice(0, -1))}>
              Newer
            </button>
            <button
              type="button"
              disabled={!page.next}
              onClick={() => page.next && move([...cursors, page.next])}
            >
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

export function FlagPage({ route }: { route: Route }) {
  return (
    <>
      <h1>Flag history</h1>
      <FlagSearch current={route.arg} />
      {route.arg ? (
        <History name={route.arg} key={route.arg} />
      ) : (
        <p>Search for a flag to see who changed it and what changed.</p>
      )}
    </>
  );
}
