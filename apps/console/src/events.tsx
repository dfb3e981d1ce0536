import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, type SearchedEvent } from './api';
import { diff } from './diff';
import {
  EVENTS_PAGE,
  filtersFromParams,
  filtersToParams,
  searchQuery,
  type EventFilters,
} from './event-filters';
import { parseMarkdown, type Md } from './markdown';
import { href, type Route } from './route';

/** A summary's markdown as elements and text nodes (never HTML made of event data). */
function Markdown({ nodes }: { nodes: Md[] }) {
  return (
    <>
      {nodes.map((n, i) =>
        n.kind === 'text' ? (
          n.text
        ) : n.kind === 'code' ? (
          <code key={i}>{n.text}</code>
        ) : n.kind === 'bold' ? (
          <strong key={i}>
            <Markdown nodes={n.children} />
          </strong>
        ) : (
          <a key={i} href={n.href} rel="noopener noreferrer nofollow" target="_blank">
            <Markdown nodes={n.children} />
          </a>
        ),
      )}
    </>
  );
}

function Diff({ e }: { e: SearchedEvent }) {
  const d = diff(e.preData, e.data);
  if (d.lines.length === 0) return <p class="muted">No data before or after (preData and data are empty).</p>;
  return (
    <>
      <table class="diff" id={`diff-${e.id}`}>
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
      {d.truncated && <p class="muted">Only the first changes are shown.</p>}
    </>
  );
}

/** One event: its head (type, time, who, place), the label and summary, and its diff on demand. */
export function EventItem({ e, showFlag }: { e: SearchedEvent; showFlag: boolean }) {
  const [open, setOpen] = useState(false);
  return (
    <li class="event card" data-event-id={e.id}>
      <div class="event-head">
        <strong class="type">{e.type}</strong>
        <time dateTime={e.createdAt}>{e.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>
        <span>
          by <span class="who">{e.createdBy}</span>
        </span>
        {e.project && <span class="badge">project {e.project}</span>}
        {showFlag && e.featureName && (
          <a class="badge flag" href={href('flag', e.featureName)}>
            flag {e.featureName}
          </a>
        )}
        {e.environment && <span class="badge env">env {e.environment}</span>}
        {(e.tags ?? []).map((t) => (
          <span class="badge tag" key={`${t.type}:${t.value}`}>
            {t.type}:{t.value}
          </span>
        ))}
        <span class="muted">#{e.id}</span>
      </div>
      <p class="summary">
        <span class="label">{e.label}</span>: <Markdown nodes={parseMarkdown(e.summary)} />
      </p>
      <button
        type="button"
        class="link"
        aria-expanded={open}
        aria-controls={open ? `diff-${e.id}` : undefined}
        onClick={() => setOpen(!open)}
      >
        {open ? 'Hide changes' : 'Show changes'}
        <span class="visually-hidden"> of event {e.id}</span>
      </button>
      {open && <Diff e={e} />}
    </li>
  );
}

interface Creator {
  id: number;
  name: string;
}

/** The filters as a form; submitting puts them in the URL (the first page). */
export function FilterForm({
  filters,
  page,
  arg,
  withFlagAndProject,
  types,
}: {
  filters: EventFilters;
  page: string;
  arg?: string;
  withFlagAndProject: boolean;
  types: string[];
}) {
  const [creators, setCreators] = useState<Creator[]>([]);
  const [projects, setProjects] = useState<string[]>([]);
  useEffect(() => {
    getJson<Creator[]>('/api/admin/event-creators')
      .then(setCreators)
      .catch(() => setCreators([]));
    if (withFlagAndProject)
      getJson<{ projects: { id: string }[] }>('/api/admin/console/projects')
        .then((r) => setProjects(r.projects.map((p) => p.id)))
        .catch(() => setProjects([]));
  }, [withFlagAndProject]);
  const field = (name: string, label: string, input: ComponentChildren) => (
    <label key={name}>
      {label} {input}
    </label>
  );
  return (
    <form
      class="filters card"
      aria-label="Event filters"
      key={JSON.stringify({ ...filters, offset: 0 })}
      onSubmit={(ev) => {
        ev.preventDefault();
        const data = new FormData(ev.currentTarget);
        const next: EventFilters = {};
        for (const [k, v] of data.entries()) if (String(v).trim()) next[k as 'q'] = String(v).trim();
        location.hash = href(page, arg, filtersToParams(next));
      }}
    >
      {field(
        'q',
        'Search',
        <input type="search" name="q" defaultValue={filters.q ?? ''} placeholder="any text" />,
      )}
      {withFlagAndProject &&
        field('feature', 'Flag', <input type="text" name="feature" defaultValue={filters.feature ?? ''} />)}
      {withFlagAndProject &&
        field(
          'project',
          'Project',
          <select name="project">
            <option value="" selected={!filters.project}>
              any
            </option>
            {[...new Set([...projects, ...(filters.project ? [filters.project] : [])])].map((p) => (
              <option key={p} value={p} selected={p === filters.project}>
                {p}
              </option>
            ))}
          </select>,
        )}
      {field(
        'type',
        'Type',
        <>
          <input
            type="text"
            name="type"
            list="event-types"
            defaultValue={filters.type ?? ''}
            autocomplete="off"
          />
          <datalist id="event-types">
            {types.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </>,
      )}
      {field(
        'createdBy',
        'Created by',
        <select name="createdBy">
          <option value="" selected={!filters.createdBy}>
            anyone
          </option>
          {creators.map((c) => (
            <option key={c.id} value={String(c.id)} selected={String(c.id) === filters.createdBy}>
              {c.name}
            </option>
          ))}
        </select>,
      )}
      {field(
        'environment',
        'Environment',
        <input type="text" name="environment" defaultValue={filters.environment ?? ''} />,
      )}
      {filters.at && <input type="hidden" name="at" value={filters.at} />}
      {field('from', 'From', <input type="date" name="from" defaultValue={filters.from ?? ''} />)}
      {field('to', 'To', <input type="date" name="to" defaultValue={filters.to ?? ''} />)}
      <div class="actions">
        <button type="submit">Apply</button>
        <button type="button" onClick={() => (location.hash = href(page, arg, { at: filters.at }))}>
          Clear
        </button>
      </div>
    </form>
  );
}

/** Event types seen on any page so far, for the type filter's suggestions. */
const seenTypes = new Set<string>();

/**
 * The events matching `filters` (plus `fixed`, the flag of the Flag page), newest first, a page at a time:
 * one call of the search route per view; the offset is in the URL with the filters.
 */
export function EventList({
  route,
  page,
  arg,
  fixed,
  title,
  empty,
}: {
  route: Route;
  page: string;
  arg?: string;
  fixed?: EventFilters;
  title: ComponentChildren;
  empty: string;
}) {
  const filters = filtersFromParams(route.params);
  const query = searchQuery({ ...filters, ...fixed });
  const [answer, setAnswer] = useState<{ events: SearchedEvent[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const top = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    let live = true;
    setError(null);
    getJson<{ events: SearchedEvent[]; total: number }>(`/api/admin/search/events?${query}`)
      .then((r) => {
        if (!live) return;
        for (const e of r.events) seenTypes.add(e.type);
        setAnswer(r);
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [query]);
  const offset = filters.offset ?? 0;
  const go = (to: number) => {
    location.hash = href(page, arg, filtersToParams({ ...filters, offset: to }));
    top.current?.focus();
  };
  const total = answer?.total ?? 0;
  const lastOffset = Math.max(0, Math.floor((total - 1) / EVENTS_PAGE) * EVENTS_PAGE);
  return (
    <>
      <FilterForm
        filters={filters}
        page={page}
        arg={arg}
        withFlagAndProject={!fixed}
        types={[...seenTypes].sort()}
      />
      <section aria-labelledby="history-title">
        <h2 id="history-title" tabIndex={-1} ref={top}>
          {title}
        </h2>
        {error && (
          <p role="alert" class="error">
            Could not load the events: {error}
          </p>
        )}
        {answer && (
          <>
            <p aria-live="polite" class="page-info" data-total={answer.total}>
              {answer.total === 0 || answer.events.length === 0
                ? empty
                : `Events ${offset + 1}–${offset + answer.events.length} of ${answer.total}, newest first.`}
            </p>
            <ol class="events">
              {answer.events.map((e) => (
                <EventItem e={e} key={e.id} showFlag={!fixed} />
              ))}
            </ol>
            <nav class="pager" aria-label="Event pages">
              <button type="button" data-page="newest" disabled={offset === 0} onClick={() => go(0)}>
                Newest
              </button>
              <button
                type="button"
                data-page="newer"
                disabled={offset === 0}
                onClick={() => go(Math.max(0, offset - EVENTS_PAGE))}
              >
                Newer
              </button>
              <button
                type="button"
                data-page="older"
                disabled={offset + EVENTS_PAGE >= total}
                onClick={() => go(offset + EVENTS_PAGE)}
              >
                Older
              </button>
              <button
                type="button"
                data-page="oldest"
                disabled={offset >= lastOffset}
                onClick={() => go(lastOffset)}
              >
                Oldest
              </button>
            </nav>
          </>
        )}
      </section>
    </>
  );
}

export function EventsPage({ route }: { route: Route }) {
  const one = filtersFromParams(route.params).id;
  return (
    <>
      <h1>Event log</h1>
      <EventList
        route={route}
        page="events"
        title={one ? `Event #${one}` : 'Events'}
        empty="No events match these filters (or none you may see)."
      />
    </>
  );
}
