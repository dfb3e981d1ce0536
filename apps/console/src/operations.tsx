import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import type {
  DeadLetterDetail,
  OperationsStatus,
  PartitionState,
} from '@flaglens/operations/operations.types';

type Status = OperationsStatus;
type DeadLetter = DeadLetterDetail;

export const REFRESH_MS = 5000;

const STATUS_TEXT: Record<PartitionState, string> = {
  'caught-up': 'caught up',
  behind: 'behind',
  stalled: 'stalled',
  unknown: 'unknown',
};

const n = (v: number | string | null | undefined) => (v === null || v === undefined ? '–' : String(v));

function DeadLetterView({ id, onClose }: { id: number; onClose: () => void }) {
  const [d, setD] = useState<DeadLetter | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getJson<DeadLetter>(`/api/admin/console/operations/dead-letters/${id}`)
      .then(setD)
      .catch((e: Error) => setError(e.message));
  }, [id]);
  return (
    <section class="card" aria-labelledby="dl-title">
      <h3 id="dl-title" tabIndex={-1} ref={(el) => el?.focus()}>
        Dead letter {id}
      </h3>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {d && (
        <>
          <dl class="pairs">
            <dt>reason</dt>
            <dd>
              <code>{d.reasonCode}</code> {d.reason}
            </dd>
            <dt>message</dt>
            <dd>
              {d.topic}[{d.partition}]@{d.offset}, key {n(d.key)}, {d.valueBytes} bytes
            </dd>
            <dt>dead since</dt>
            <dd>{d.createdAt}</dd>
            <dt>re-drive</dt>
            <dd>{n(d.redriveOutcome)}</dd>
          </dl>
          <pre class="raw" tabIndex={0} aria-label="The message value">
            {d.value ?? '(null)'}
            {d.truncated ? '\n… (truncated)' : ''}
          </pre>
        </>
      )}
      <button type="button" onClick={onClose}>
        Close
      </button>
    </section>
  );
}

/**
 * What the CLI's `status` shows, refreshed every 5 s: from GET /api/admin/console/operations (operators
 * only), which the api computes from the tables the projector, the connector and a rebuild write, and the
 * broker's high-water marks.
 */
export function OperationsPage() {
  const [st, setSt] = useState<Status | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      getJson<Status>('/api/admin/console/operations')
        .then((s) => {
          if (!live) return;
          setSt(s);
          setError(null);
        })
        .catch((e: Error) => live && setError(e.message))
        .finally(() => {
          if (live) timer = setTimeout(tick, REFRESH_MS);
        });
    };
    tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  return (
    <>
      <h1>Operations</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {st && (
        <>
          <p class="muted" aria-live="polite">
            Topic <code>{st.topic}</code>, group <code>{st.group}</code>, projection version{' '}
            {st.projectionVersion ? st.projectionVersion.version : 'none'}; updated{' '}
            <time dateTime={st.at}>{st.at.slice(11, 19)} UTC</time>, every {REFRESH_MS / 1000} s.
            {!st.broker.ok && <strong> The broker did not answer: {st.broker.error}</strong>}
          </p>
          <section class="card" aria-labelledby="lag-title" data-section="partitions">
            <h2 id="lag-title">Projector lag per partition (total {n(st.lag)} events)</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">partition</th>
                  <th scope="col">stored offset</th>
                  <th scope="col">high-water mark</th>
                  <th scope="col">lag (events)</th>
                  <th scope="col">lag (seconds)</th>
                  <th scope="col">last event</th>
                  <th scope="col">status</th>
                </tr>
              </thead>
              <tbody>
                {st.partitions.map((p) => (
                  <tr key={p.partition} data-partition={p.partition}>
                    <th scope="row">{p.partition}</th>
                    <td>{n(p.storedOffset)}</td>
                    <td>{n(p.highWatermark)}</td>
                    <td data-lag={p.lag ?? ''}>{n(p.lag)}</td>
                    <td>{n(p.lagSeconds)}</td>
                    <td>{n(p.lastEventAt)}</td>
                    <td>
                      <span class={`status ${p.status}`}>{STATUS_TEXT[p.status] ?? p.status}</span>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p class="muted">Stalled: behind, and no batch applied for {st.stallSeconds} s.</p>
          </section>
          <section class="card" aria-labelledby="source-title" data-section="sources">
            <h2 id="source-title">Connector position behind Unleash</h2>
            {st.sources.length === 0 ? (
              <p class="muted">No source connector has run (npm run cli -- source unleash …).</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">source</th>
                    <th scope="col">state</th>
                    <th scope="col">position</th>
                    <th scope="col">behind (rows)</th>
                    <th scope="col">behind (seconds)</th>
                    <th scope="col">open gaps</th>
                    <th scope="col">last poll</th>
                  </tr>
                </thead>
                <tbody>
                  {st.sources.map((x) => (
                    <tr key={x.source}>
                      <th scope="row">
                        {x.source} <span class="muted">{x.origin}</span>
                      </th>
                      <td>{x.state}</td>
                      <td>{n(x.position)}</td>
                      <td>{n(x.lagRows)}</td>
                      <td>{n(x.lagSeconds)}</td>
                      <td>{x.openGaps}</td>
                      <td>{n(x.lastPollAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>
          <section class="card" aria-labelledby="dl-list-title" data-section="dead-letters">
            <h2 id="dl-list-title">
              Dead letters: {st.deadLetters.pending} pending of {st.deadLetters.total}
            </h2>
            {st.deadLetters.byReason.length > 0 && (
              <table>
                <caption>By reason</caption>
                <thead>
                  <tr>
                    <th scope="col">reason</th>
                    <th scope="col">pending</th>
                    <th scope="col">total</th>
                  </tr>
                </thead>
                <tbody>
                  {st.deadLetters.byReason.map((r) => (
                    <tr key={r.reason} data-reason={r.reason}>
                      <th scope="row">
                        <code>{r.reason}</code>
                      </th>
                      <td>{r.pending}</td>
                      <td>{r.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {st.deadLetters.latest.length > 0 && (
              <table>
                <caption>Newest</caption>
                <thead>
                  <tr>
                    <th scope="col">id</th>
                    <th scope="col">reason</th>
                    <th scope="col">message</th>
                    <th scope="col">when</th>
                    <th scope="col">
                      <span class="visually-hidden">look</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {st.deadLetters.latest.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">{d.id}</th>
                      <td>
                        <code>{d.reasonCode}</code>
                        {d.redrivenAt ? ' (re-driven)' : ''}
                      </td>
                      <td>
                        [{d.partition}]@{d.offset}
                      </td>
                      <td>{d.createdAt}</td>
                      <td>
                        <button
                          type="button"
                          onClick={() => setOpen(d.id)}
                          aria-label={`Look at dead letter ${d.id}`}
                        >
                          Look
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {open !== null && <DeadLetterView id={open} key={open} onClose={() => setOpen(null)} />}
          </section>
          <section class="card" aria-labelledby="rebuild-title" data-section="rebuild">
            <h2 id="rebuild-title">Rebuild</h2>
            {st.rebuild ? (
              <>
                <label for="rebuild-progress">
                  Building version {st.rebuild.version}: {st.rebuild.applied} of {st.rebuild.target} events (
                  {st.rebuild.percent}%)
                </label>
                <progress
                  id="rebuild-progress"
                  max={Math.max(1, st.rebuild.target)}
                  value={st.rebuild.applied}
                />
              </>
            ) : (
              <p class="muted">No rebuild in progress.</p>
            )}
          </section>
        </>
      )}
      {!st && !error && <p aria-live="polite">Loading…</p>}
    </>
  );
}
