/*
 * The machine's CPU over a stretch of the bench, by process group: which of the processes sharing the cores (the
 * api and its Postgres backends, the projector and its backends, the Kafka broker, the bench's producer, the load
 * tool, the rest) took it. Read from /proc (utime + stime of every process, backends by their
 * application_name in pg_stat_activity), so it needs the bench to run on the machine it measures.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { procCpuSeconds } from './proc';

/**
 * Every process's CPU seconds so far, and its children's that ended (as the load tool the bench runs), with its
 * command name and command line.
 */
export type CpuSnapshot = Map<number, { seconds: number; children: number; comm: string; cmdline: string }>;

export function cpuSnapshot(): CpuSnapshot {
  const snap: CpuSnapshot = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const seconds = procCpuSeconds(name);
    const children = procCpuSeconds(name, true) - seconds;
    if (!Number.isFinite(seconds)) continue;
    try {
      const comm = readFileSync(`/proc/${name}/comm`, 'latin1').trim();
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ');
      snap.set(Number(name), { seconds, children, comm, cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return snap;
}

/** What tells the bench's processes apart. */
export interface ProcessRoles {
  apiPid?: number;
  projectorPid?: number;
  /** this process (the bench: the steady producer and the figures); its children that ended are the load tool */
  benchPid: number;
  /** Postgres backend pid -> its application_name (pg_stat_activity) */
  backends: Map<number, string>;
}

export const CPU_GROUPS = [
  'api',
  'api Postgres backends',
  'projector',
  'projector Postgres backends',
  'other Postgres',
  'Kafka broker',
  'bench (producer)',
  'load tool',
  'other',
] as const;
export type CpuGroup = (typeof CPU_GROUPS)[number];

/** The group of one process. */
export function groupOf(pid: number, p: { comm: string; cmdline: string }, roles: ProcessRoles): CpuGroup {
  if (pid === roles.apiPid) return 'api';
  if (pid === roles.projectorPid) return 'projector';
  if (pid === roles.benchPid) return 'bench (producer)';
  const app = roles.backends.get(pid);
  if (app !== undefined) {
    if (app.startsWith('flaglens-api')) return 'api Postgres backends';
    if (app.startsWith('flaglens-projector')) return 'projector Postgres backends';
  }
  if (p.comm.startsWith('postgres')) return 'other Postgres';
  if (p.cmdline.includes('kafka.Kafka')) return 'Kafka broker';
  if (p.comm === 'wrk' || p.cmdline.includes('autocannon')) return 'load tool';
  return 'other';
}

/**
 * ms of CPU per second of wall time, by group, between two snapshots `seconds` apart (processes started
 * meanwhile count from 0; the bench's children that ended meanwhile, its load tool, as `load tool`), and their
 * total.
 */
export function cpuByGroup(
  before: CpuSnapshot,
  after: CpuSnapshot,
  seconds: number,
  roles: ProcessRoles,
): Record<CpuGroup | 'total', number> {
  const ms = Object.fromEntries([...CPU_GROUPS, 'total'].map((g) => [g, 0])) as Record<
    CpuGroup | 'total',
    number
  >;
  for (const [pid, p] of after) {
    const spent = p.seconds - (before.get(pid)?.seconds ?? 0);
    if (spent <= 0) continue;
    ms[groupOf(pid, p, roles)] += spent;
    ms.total += spent;
  }
  const reaped = (after.get(roles.benchPid)?.children ?? 0) - (before.get(roles.benchPid)?.children ?? 0);
  if (reaped > 0) {
    ms['load tool'] += reaped;
    ms.total += reaped;
  }
  for (const g of Object.keys(ms) as (CpuGroup | 'total')[]) ms[g] = Math.round((ms[g] * 1000) / seconds);
  return ms;
}
