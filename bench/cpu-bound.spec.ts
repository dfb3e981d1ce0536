import { CACHED_READ_CPU_BOUND, cpuOverBound } from './cpu-bound';

describe('the cached reads CPU guard', () => {
  const row = (api: number | undefined, floor: number | undefined) => ({
    endpoint: 'GET /api/admin/user/profile',
    connections: 50,
    cpuUsPerRequest: api,
    floorCpuUsPerRequest: floor,
  });

  it('passes what CI and a quiet machine measured', () => {
    // c=50 rows of a clean-clone CI run (api, floor µs), and the widest of bench/results/reads-ab-node-* (the
    // floor on Node 20)
    const measured = [
      [67, 53],
      [232, 199],
      [49, 36],
      [42, 33],
      [60, 42],
      [69, 31],
      [73, 33],
    ];
    expect(cpuOverBound(measured.map(([a, f]) => row(a, f)))).toEqual([]);
  });

  it('fails a read whose CPU per request is past the bound times the floor, saying by how much', () => {
    expect(cpuOverBound([row(40 * CACHED_READ_CPU_BOUND + 1, 40)])).toEqual([
      "GET /api/admin/user/profile c=50: 121 µs of the api's CPU per request, 3.02 times the floor's 40 µs (at most 3 times)",
    ]);
    // twice what CI measured for the overview, against the same floor: caught
    expect(cpuOverBound([row(2 * 49 * 1.6, 36)])).toHaveLength(1);
  });

  it('ignores what was not measured', () => {
    expect(cpuOverBound([row(undefined, 40), row(500, undefined), row(500, 0)])).toEqual([]);
  });
});
