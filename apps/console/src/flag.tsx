import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import { parseInstant, showInstant } from './as-of';
import { filtersFromParams, filtersToParams } from './event-filters';
import { EventList } from './events';
import { href, type Route } from './route';
import { CompareAnswers } from './answer-compare';
import { TimeControl } from './time-control';

interface FlagName {
  name: string;
  project: string;
  archived: boolean;
}

/** Search with suggestions (a datalist fed by the api as one types), then the flag's events. */
function FlagSearch({ current, at }: { current: string; at?: string }) {
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
        if (q.trim()) location.hash = href('flag', q.trim(), { at });
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
              <a href={href('flag', n.name, { at })}>{n.name}</a> <span class="muted">{n.project}</span>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}

export function FlagPage({ route }: { route: Route }) {
  const filters = filtersFromParams(route.params);
  const at = filters.at;
  return (
    <>
      <h1>Flag history</h1>
      <FlagSearch current={route.arg} at={at} />
      <TimeControl
        at={at}
        go={(next) =>
          (location.hash = href(
            'flag',
            route.arg,
            filtersToParams({ ...filters, offset: undefined, at: next }),
          ))
        }
      />
      {route.arg ? (
        <EventList
          key={route.arg}
          route={route}
          page="flag"
          arg={route.arg}
          fixed={{ feature: route.arg }}
          title={
            <>
              Events of <code>{route.arg}</code>
              {at && ` as of ${showInstant(at)}`}
            </>
          }
          empty="No events (an unknown flag, or one you may not see)."
        />
      ) : (
        <p>Search for a flag to see who changed it and what changed.</p>
      )}
      {route.arg && (
        <CompareAnswers
          path={`/api/admin/events/${encodeURIComponent(route.arg)}`}
          what="flag’s event list"
          t1={parseInstant(route.params.get('t1'))}
          t2={parseInstant(route.params.get('t2'))}
          go={(t1, t2) => (location.hash = href('flag', route.arg, { ...filtersToParams(filters), t1, t2 }))}
        />
      )}
    </>
  );
}
