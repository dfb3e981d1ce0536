import { fromInputValue, showInstant, toInputValue } from './as-of';

/**
 * Pick an instant (UTC, to the second) or "now": `go` puts it in the URL, and the page reads with `at=`. While
 * an instant is chosen, a banner says the page shows the past.
 */
export function TimeControl({ at, go }: { at?: string; go: (at: string | undefined) => void }) {
  return (
    <>
      <form
        class="card filters time"
        aria-label="Time"
        key={at ?? 'now'}
        onSubmit={(e) => {
          e.preventDefault();
          const v = String(new FormData(e.currentTarget).get('at') ?? '');
          go(fromInputValue(v));
        }}
      >
        <label>
          As of (UTC) <input type="datetime-local" name="at" step="1" defaultValue={toInputValue(at)} />
        </label>
        <div class="actions">
          <button type="submit" data-time="show">
            Show then
          </button>
          <button type="button" data-time="now" disabled={!at} onClick={() => go(undefined)}>
            Now
          </button>
        </div>
      </form>
      {at ? (
        <p class="as-of" role="status" data-as-of={at}>
          <strong>Showing the past:</strong> as of <time dateTime={at}>{showInstant(at)}</time>. Nothing after
          it is counted.
        </p>
      ) : (
        <p class="muted" role="status" data-as-of="">
          Live: as of now.
        </p>
      )}
    </>
  );
}
