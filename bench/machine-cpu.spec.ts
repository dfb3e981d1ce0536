import { cpuByGroup, cpuSnapshot, groupOf, type CpuSnapshot, type ProcessRoles } from './machine-cpu';

const roles: ProcessRoles = {
  apiPid: 10,
  projectorPid: 11,
  benchPid: 12,
  backends: new Map([
    [20, 'flaglens-api'],
    [21, 'flaglens-api-listener'],
    [22, 'flaglens-projector'],
    [23, 'psql'],
  ]),
};
const proc = (seconds: number, comm: string, cmdline = comm, children = 0) => ({
  seconds,
  children,
  comm,
  cmdline,
});

describe('the machine CPU by process group', () => {
  it('tells the bench processes apart by pid, application_name and command', () => {
    const of = (pid: number, comm: string, cmdline = comm) => groupOf(pid, { comm, cmdline }, roles);
    expect(of(10, 'node')).toBe('api');
    expect(of(11, 'node')).toBe('projector');
    expect(of(12, 'node')).toBe('bench (producer)');
    expect(of(20, 'postgres')).toBe('api Postgres backends');
    expect(of(21, 'postgres')).toBe('api Postgres backends');
    expect(of(22, 'postgres')).toBe('projector Postgres backends');
    expect(of(23, 'postgres')).toBe('other Postgres');
    expect(of(30, 'postgres', 'postgres: 15/main: walwriter')).toBe('other Postgres');
    expect(of(31, 'java', 'java -Xmx768m -cp libs/* kafka.Kafka server.properties')).toBe('Kafka broker');
    expect(of(32, 'wrk', 'wrk -t2 -c50')).toBe('load tool');
    expect(of(33, 'sshd')).toBe('other');
  });

  it('sums the CPU spent between two snapshots per group, in ms per second of wall time', () => {
    const before: CpuSnapshot = new Map([
      [10, proc(5, 'node')],
      [11, proc(7, 'node')],
      [12, proc(1, 'node', 'node bench/run.ts', 3)],
      [20, proc(2, 'postgres')],
      [40, proc(9, 'sshd')], // gone by the second snapshot: not counted
    ]);
    const after: CpuSnapshot = new Map([
      [10, proc(6, 'node')], // +1 s
      [11, proc(7.5, 'node')], // +0.5 s
      [12, proc(1.2, 'node', 'node bench/run.ts', 3.4)], // +0.2 s, and a child (wrk) of 0.4 s ended
      [20, proc(2.3, 'postgres')], // +0.3 s
      [21, proc(0.1, 'postgres')], // connected meanwhile: counted from 0
      [41, proc(0, 'sshd')], // idle
    ]);
    expect(cpuByGroup(before, after, 2, roles)).toEqual({
      api: 500,
      'api Postgres backends': 200,
      projector: 250,
      'projector Postgres backends': 0,
      'other Postgres': 0,
      'Kafka broker': 0,
      'bench (producer)': 100,
      'load tool': 200,
      other: 0,
      total: 1250,
    });
  });

  it('reads every process of this machine, this one included', () => {
    const snap = cpuSnapshot();
    expect(snap.get(process.pid)).toMatchObject({ comm: expect.any(String) });
    expect(snap.get(process.pid)!.seconds).toBeGreaterThan(0);
  });
});
