/*
 * The api's CPU priority for the bench (`--api-priority N`). Linux's autogroup scheduling (on where
 * /proc/sys/kernel/sched_autogroup_enabled is 1, as on the bench's machines) shares the CPUs fairly between
 * sessions, not processes: every Postgres backend calls setsid() and is a group of its own, while the apps the
 * bench starts share its session with the projector, the producer and the load tool. A nice value then only
 * orders the processes of one session. A process started in a session of its own (`detached`) has a group of
 * its own, whose weight is set by writing a nice value to /proc/<pid>/autogroup; that is what a deployment does
 * with a container's CPU weight (docs/deploy.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** An autogroup nice value of the command line: a whole number from -20 to 19, or undefined when not given. */
export function parsePriority(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < -20 || n > 19)
    throw new Error(
      `${flag} takes a nice value, a whole number from -20 to 19, not ${JSON.stringify(value)}`,
    );
  return n;
}

/** The nice value of a process's autogroup (`/autogroup-42 nice -10`), undefined where there is none. */
export function autogroupNice(pid: number): number | undefined {
  try {
    const m = /\bnice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sets the nice value of the autogroup of `pid` (a process started in a session of its own: the group is its
 * session's), and checks it took. A negative value needs CAP_SYS_NICE; the error says so.
 */
export function setAutogroupNice(pid: number, nice: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch (e) {
    throw new Error(
      `could not set the autogroup nice of process ${pid} to ${nice} (${(e as Error).message}): autogroup ` +
        'scheduling must be on (/proc/sys/kernel/sched_autogroup_enabled) and a negative value needs CAP_SYS_NICE',
    );
  }
  const now = autogroupNice(pid);
  if (now !== nice)
    throw new Error(`the autogroup nice of process ${pid} is ${now}, not ${nice}, after setting it`);
}
