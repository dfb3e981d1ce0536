import type { LoadResult } from './load';
import { medianLoad, peerMarkdown, peerRow, type PeerResult } from './peer';

const run = (reqPerSec: number, p99Ms: number, non2xx = 0): LoadResult => ({
  tool: 'wrk',
  reqPerSec,
  p50Ms: p99Ms / 2,
  p99Ms,
  non2xx,
});

describe('the peer table', () => {
  it('reports the median of the turns and sums the failures', () => {
    expect(medianLoad([run(300, 9), run(100, 30, 1), run(200, 12, 2)])).toEqual({
      tool: 'wrk',
      reqPerSec: 200,
      p50Ms: 6,
      p99Ms: 12,
      non2xx: 3,
    });
    expect(medianLoad([run(100, 10), run(201, 20)]).reqPerSec).toBe(151);
  });

  it('puts flaglens over Unleash, with the body of each side and the turns in order', () => {
    const row = peerRow(
      'GET /api/admin/events/{2000-event flag}',
      50,
      {
        probe: { status: 200, bytes: 24_000, events: 100, totalEvents: 2000 },
        turns: [run(400, 200), run(472, 180)],
      },
      {
        probe: { status: 200, bytes: 483_000, events: 2000, totalEvents: 2000 },
        turns: [run(4000, 20), run(4400, 22)],
      },
    );
    expect(row).toMatchObject({
      connections: 50,
      tool: 'wrk',
      unleash: { reqPerSec: 436, p99Ms: 190, bytes: 24_000, events: 100 },
      flaglens: { reqPerSec: 4200, p99Ms: 21, bytes: 483_000, events: 2000 },
      ratio: 9.6,
      turns: { unleash: [400, 472], flaglens: [4000, 4400] },
    });
    const result: PeerResult = {
      unleash: '6.10.1',
      dataset: { flagEvents: 2000, projectFlags: 200, unleashEvents: 2410, flaglensEvents: 2410 },
      loadSeconds: 60,
      feedSeconds: 9,
      rounds: 2,
      rows: [row],
      skipped: [{ endpoint: 'GET /api/admin/dashboard/executive', unleashStatus: 404, flaglensStatus: 200 }],
    };
    const md = peerMarkdown(result).join('\n');
    expect(md).toContain(
      '| GET /api/admin/events/{2000-event flag} | 50 | wrk | 436, 190 ms | 4200, 21 ms | **×9.6** | 24 kB (100 of 2000 events) / 483 kB (2000 of 2000 events) |',
    );
    expect(md).toContain(
      '| GET /api/admin/dashboard/executive | | | status 404 | status 200 | not compared | |',
    );
  });
});
