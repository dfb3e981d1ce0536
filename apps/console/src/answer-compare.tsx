import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import { fromInputValue, showInstant, toInputValue } from './as-of';
import {
  answerChanges,
  answerLines,
  inside,
  withEventPages,
  type DiffAnswer,
  type EventsPage,
  type Json,
} from './answer-changes';
import { href } from './route';

/** The most of a range's events a comparison reads (the pages of the diff's `eventsNext`, one after another). */
export const COMPARE_MAX_EVENTS = 10_000;

/**
 * The api's diff of a read between two instants (`GET /api/admin/diff`), with the range's events read on from its
 * next pages up to COMPARE_MAX_EVENTS (`eventsNext` is not null when there are more); T1 before T2, else nothing
 * is read.
 */
export function useDiff<A extends DiffAnswer = DiffAnswer>(
  path: string | null,
  t1?: string,
  t2?: string,
): { answer: A | null; error: string | null; ordered: boolean } {
  const [answer, setAnswer] = useState<A | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ordered = !!t1 && !!t2 && Date.parse(t1) < Date.parse(t2);
  useEffect(() => {
    setAnswer(null);
    setError(null);
    if (!path || !ordered) return;
    let live = true;
    const q = new URLSearchParams({ path, from: t1!, to: t2! });
    getJson<A>(`/api/admin/diff?${q.toString()}`)
      .then((a) =>
        withEventPages(a, COMPARE_MAX_EVENTS, (next) => (live ? getJson<EventsPage<A>>(next) : null)),
      )
      .then((a) => live && setAnswer(a))
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [path, t1, t2, ordered]);
  return { answer, error, ordered };
}

/**
 * The two instants of a comparison, from the URL (`t1`, `t2`): `go` puts the chosen ones in it (T2 empty: now).
 * The fields start from the URL and are read when the form is sent.
 */
export function CompareForm({
  t1,
  t2,
  go,
  note,
}: {
  t1?: string;
  t2?: string;
  go: (t1: string | undefined, t2: string) => void;
  note: string;
}) {
  return (
    <form
      class="card filters"
      aria-label="Compare two instants"
      key={`${t1}|${t2}`}
      onSubmit={(e) => {
        e.preventDefault();
        const data = new FormData(e.currentTarget);
        go(
          fromInputValue(String(data.get('t1') ?? '')),
          fromInputValue(String(data.get('t2') ?? '')) ?? new Date().toISOString(),
        );
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
      <p class="muted">{note}</p>
    </form>
  );
}

/** A value in a cell: JSON, cut at 80 characters. */
const shown = (v: Json | undefined): string => {
  if (v === undefined) return '–';
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
};

/** One answer printed, the lines of the changed places marked. */
function AnswerPane({ title, doc, marked }: { title: ComponentChildren; doc: Json; marked: string[] }) {
  const lines = answerLines(doc);
  return (
    <figure class="answer-pane">
      <figcaption>{title}</figcaption>
      <pre tabIndex={0}>
        {lines.map((l, i) =>
          inside(l.where, marked) ? (
            <mark key={i} data-where={l.where}>
              {l.text}
              {'\n'}
            </mark>
          ) : (
            <span key={i}>
              {l.text}
              {'\n'}
            </span>
          ),
        )}
      </pre>
    </figure>
  );
}

/**
 * A diff shown: what changed in the answer (each change named, with its values before and after and the events
 * that name what it changed), the two answers side by side with the changed lines marked, and the range's
 * events, each linked to the Events page.
 */
export function AnswerDiff({ answer, what }: { answer: DiffAnswer; what: string }) {
  const changes = answerChanges(answer);
  const [t1, t2] = [showInstant(answer.from), showInstant(answer.to)];
  return (
    <section class="answer-diff" aria-label={`The ${what} at T1 and at T2`}>
      <h3>The {what} at T1 and at T2</h3>
      <p
        aria-live="polite"
        class="compare-info"
        data-answer-changes={changes.length}
        data-events={answer.events.length}
      >
        {changes.length === 0
          ? 'The answer did not change'
          : `${changes.length} change${changes.length === 1 ? '' : 's'} in the answer`}
        , {answer.eventsNext === null ? '' : 'the first '}
        {answer.events.length} event{answer.events.length === 1 ? '' : 's'} between {t1} and {t2}
        {answer.eventsNext === null ? '.' : ' (there are more: narrow the range to see them all).'}
      </p>
      {changes.length > 0 && (
        <table class="changes answer-changes">
          <caption class="visually-hidden">
            What changed in the answer, in the order the patch applies
          </caption>
          <thead>
            <tr>
              <th scope="col">change</th>
              <th scope="col">where</th>
              <th scope="col">at T1</th>
              <th scope="col">at T2</th>
              <th scope="col">events</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((c, i) => (
              <tr key={i} data-kind={c.kind} data-where={c.where}>
                <td>{c.kind}</td>
                <td>
                  <code>{c.where}</code>
                </td>
                <td>
                  <code>{shown(c.before)}</code>
                </td>
                <td>
                  <code>{shown(c.after)}</code>
                </td>
                <td>
                  {c.eventIds.length === 0 ? (
                    <span class="muted">the range’s</span>
                  ) : (
                    c.eventIds.slice(0, 5).map((id) => (
                      <a key={id} href={href('events', '', { id: String(id) })} data-event-link>
                        #{id}{' '}
                      </a>
                    ))
                  )}
                  {c.eventIds.length > 5 && <span class="muted">+{c.eventIds.length - 5}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="side-by-side">
        <AnswerPane
          title={<>As of T1, {t1}</>}
          doc={answer.before}
          marked={changes.flatMap((c) => (c.marks.before === null ? [] : [c.marks.before]))}
        />
        <AnswerPane
          title={<>As of T2, {t2}</>}
          doc={answer.after}
          marked={changes.flatMap((c) => (c.marks.after === null ? [] : [c.marks.after]))}
        />
      </div>
      {answer.events.length > 0 && (
        <details class="range-events">
          <summary>
            The {answer.eventsNext === null ? '' : 'first '}
            {answer.events.length} events between T1 and T2
          </summary>
          <ul class="plain">
            {answer.events.map((e) => (
              <li key={e.id}>
                <a href={href('events', '', { id: String(e.id) })}>#{e.id}</a> {e.type}{' '}
                <span class="muted">
                  {showInstant(e.createdAt)} by {e.createdBy}
                  {e.featureName && ` · ${e.featureName}`}
                </span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

/** "Compare two instants" for a read of the api: the form, and the diff of `path` between T1 and T2. */
export function CompareAnswers({
  path,
  what,
  t1,
  t2,
  go,
}: {
  path: string;
  what: string;
  t1?: string;
  t2?: string;
  go: (t1: string | undefined, t2: string) => void;
}) {
  const { answer, error, ordered } = useDiff(path, t1, t2);
  return (
    <section class="compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two instants</h2>
      <CompareForm
        t1={t1}
        t2={t2}
        go={go}
        note={`T2 empty: now. The ${what} as of each instant, and what changed.`}
      />
      <CompareStatus t1={t1} t2={t2} ordered={ordered} error={error} loading={ordered && !answer && !error} />
      {answer && <AnswerDiff answer={answer} what={what} />}
    </section>
  );
}

/** What a comparison says before its answer: a reversed range, a refusal, or that it is being read. */
export function CompareStatus(p: {
  t1?: string;
  t2?: string;
  ordered: boolean;
  error: string | null;
  loading: boolean;
}) {
  return (
    <>
      {p.t1 && p.t2 && !p.ordered && (
        <p role="alert" class="error">
          T1 must be before T2.
        </p>
      )}
      {p.error && (
        <p role="alert" class="error">
          Could not compare: {p.error}
        </p>
      )}
      {p.loading && <p aria-live="polite">Reading both answers…</p>}
    </>
  );
}
