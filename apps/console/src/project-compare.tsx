import { AnswerDiff, CompareForm, CompareStatus, useDiff } from './answer-compare';
import type { DiffAnswer } from './answer-changes';
import { showInstant } from './as-of';
import { CHANGE_KINDS, changesBetween, countByKind, type ProjectEvent } from './project-changes';
import { href } from './route';

/**
 * "Compare two instants": the project's overview as of T1 and T2 (`GET /api/admin/diff`), and the project's
 * events between them classified: the flags added, enabled or disabled per environment, archived, revived,
 * deleted, moved, and the member changes, each linked to its event. T1 and T2 are in the URL (`t1`, `t2`) with
 * the page's other parameters (`keep`).
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
  const {
    answer: diff,
    error,
    ordered,
  } = useDiff<DiffAnswer & { events: ProjectEvent[] }>(
    `/api/admin/projects/${encodeURIComponent(project)}/overview`,
    t1,
    t2,
  );
  const answer = diff && { changes: changesBetween(diff.events, project, t1!, t2!) };
  const counts = answer && countByKind(answer.changes);
  return (
    <section class="compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare two instants</h2>
      <CompareForm
        t1={t1}
        t2={t2}
        go={(from, to) => (location.hash = href('project', project, { ...keep, t1: from, t2: to }))}
        note="T2 empty: now. The overview as of each instant, and the project’s events after T1 and up to T2."
      />
      <CompareStatus t1={t1} t2={t2} ordered={ordered} error={error} loading={ordered && !diff && !error} />
      {answer && counts && (
        <>
          <p aria-live="polite" class="compare-info" data-changes={answer.changes.length}>
            Between {showInstant(t1!)} and {showInstant(t2!)}: {answer.changes.length} change
            {answer.changes.length === 1 ? '' : 's'}
            {answer.changes.length > 0 &&
              ` (${CHANGE_KINDS.filter((k) => counts[k.kind] > 0)
                .map((k) => `${counts[k.kind]} ${k.title}`)
                .join(', ')})`}
            {diff.eventsNext === null
              ? '.'
              : `, from the first ${diff.events.length} events of the range (there are more: narrow it to see them all).`}
          </p>
          {answer.changes.length > 0 && (
            <table class="changes project-changes">
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
      {diff && <AnswerDiff answer={diff} what="overview" />}
    </section>
  );
}
