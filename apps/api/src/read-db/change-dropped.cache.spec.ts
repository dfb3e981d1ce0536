import { ANYTHING, decodeChanges, encodeChanges, type Changes } from '@flaglens/projections';
import type { ChangeListener } from './change-listener.service';
import { ChangeDroppedCache, TRACKED_DROPS, type Loaded } from './change-dropped.cache';

/** The change feed as the cache sees it: notices handed to its subscriber. */
function feed() {
  let handler: ((c: Changes | 'reset') => void) | undefined;
  const listener = {
    enabled: true,
    listening: true,
    subscribe: (h: (c: Changes | 'reset') => void) => (handler = h),
  };
  return {
    listener: listener as unknown as ChangeListener,
    /** a notice of a batch that wrote these flags' event lists ('*': anything may have changed) */
    notice: (flags: string[] | '*') =>
      handler!(
        flags === '*'
          ? ANYTHING
          : decodeChanges(
              encodeChanges([{ tables: ['event_log'], flags: new Set(flags), projects: new Set() }])[0],
            ),
      ),
    reset: () => handler!('reset'),
  };
}

/** A load that finishes when told to. */
function deferred<V>(value: V) {
  let finish!: () => void;
  const promise = new Promise<Loaded<V>>((r) => (finish = () => r({ value })));
  return { promise, finish };
}

describe('ChangeDroppedCache: which loads are kept', () => {
  const make = () => {
    const f = feed();
    const cache = new ChangeDroppedCache<string>(
      f.listener,
      { schema: 'v1' },
      {
        maxBytes: 1_000_000,
        sizeOf: (v) => v.length,
        reads: { tables: ['event_log'], by: 'flags' },
      },
    );
    return { ...f, cache };
  };

  it('keeps a load during which only other keys changed (a steady stream of changes)', async () => {
    const { cache, notice } = make();
    const load = deferred('a@1');
    const pending = cache.getOrLoad('a', () => load.promise);
    notice(['b']);
    notice(['c', 'd']);
    load.finish();
    expect(await pending).toBe('a@1');
    expect(cache.get('a')).toBe('a@1');
  });

  it('does not keep a load during which its own key changed, nor one during a drop of everything', async () => {
    const { cache, notice, reset } = make();
    for (const change of [() => notice(['x', 'a']), () => notice('*'), reset]) {
      const load = deferred('a@old');
      const pending = cache.getOrLoad('a', () => load.promise);
      change();
      load.finish();
      expect(await pending).toBe('a@old'); // answered to those who asked, but not kept
      expect(cache.get('a')).toBeUndefined();
    }
  });

  it('shares a running load with later requests unless their key changed since it started', async () => {
    const { cache, notice } = make();
    let loads = 0;
    const first = deferred('a@1');
    const second = deferred('a@2');
    const loader = () => (++loads === 1 ? first.promise : second.promise);
    const one = cache.getOrLoad('a', loader);
    notice(['b']);
    const two = cache.getOrLoad('a', loader); // joins: nothing of `a` changed
    expect(loads).toBe(1);
    notice(['a']);
    const three = cache.getOrLoad('a', loader); // a new load: `a` changed after the first began
    expect(loads).toBe(2);
    first.finish();
    second.finish();
    expect([await one, await two, await three]).toEqual(['a@1', 'a@1', 'a@2']);
    expect(cache.get('a')).toBe('a@2');
  });

  it('keeps a value read since a token unless its key changed in between', () => {
    const { cache, notice } = make();
    const token = cache.begin();
    notice(['b']);
    cache.setIfUnchanged('a', { value: 'a@1' }, token);
    expect(cache.get('a')).toBe('a@1');
    const later = cache.begin();
    notice(['c']);
    notice(['a']); // drops the entry, and the value read since `later`
    cache.setIfUnchanged('a', { value: 'a@2' }, later);
    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets its remembered drops past a bound, counting every running load as changed', async () => {
    const { cache, notice } = make();
    const load = deferred('a@1');
    const pending = cache.getOrLoad('a', () => load.promise);
    notice(Array.from({ length: TRACKED_DROPS + 1 }, (_, i) => `other-${i}`));
    load.finish();
    await pending;
    expect(cache.get('a')).toBeUndefined();
    // loads that start afterwards are judged by their own keys again
    const next = deferred('a@2');
    const again = cache.getOrLoad('a', () => next.promise);
    notice(['b']);
    next.finish();
    expect(await again).toBe('a@2');
    expect(cache.get('a')).toBe('a@2');
  });
});
