/**
 * Where a process's CPU went, per request, from a V8 CPU profile (`.cpuprofile`): the samples taken between two
 * instants (the measured load), each charged to the innermost frame of the project's own code on its stack (a
 * file of `dist/apps` or `dist/libs`: the part of the request path that asked for the work, whatever library
 * or Node internal did it), else to the library (`node_modules/<package>`), Node's own modules (`node:http`…),
 * the garbage collector or V8 (`(program)`). Idle samples are left out. Pure.
 */

export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CostPart {
  /** the project's file (`apps/api/src/auth/…`), a package, a Node module, or a V8 category */
  part: string;
  /** µs of CPU per request */
  usPerRequest: number;
  /** share of the window's busy time */
  share: number;
  /** for a file of the project: where its time was spent (the sampled frame's part), the costliest first */
  within?: { part: string; usPerRequest: number }[];
}

/** Parts of `within` listed per own part. */
const WITHIN = 4;

/** The part a frame's script belongs to, and whether it is the project's own code. */
export function partOf(url: string, functionName: string): { part: string; own: boolean } {
  const own = url.match(/\/dist\/((?:apps|libs)\/.+)$/);
  if (own) return { part: own[1], own: true };
  if (url.includes('node_modules/')) {
    const rest = url.split('node_modules/').pop()!.split('/');
    return { part: rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0], own: false };
  }
  if (url.startsWith('node:')) return { part: url.replace(/^node:internal\//, 'node:'), own: false };
  if (url === '') return { part: functionName.startsWith('(') ? functionName : '(native)', own: false };
  return { part: url.split('/').pop()!, own: false };
}

/**
 * The busy time of the samples in [`fromUs`, `toUs`] (the profile's clock: µs of the monotonic clock, as
 * `process.hrtime`) per part, divided by `requests`; the parts in order of cost.
 */
export function costBreakdown(
  profile: CpuProfile,
  fromUs: number,
  toUs: number,
  requests: number,
): CostPart[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // each node's part: its innermost own frame, else its own frame's
  const partCache = new Map<number, string>();
  const part = (id: number): string => {
    const hit = partCache.get(id);
    if (hit !== undefined) return hit;
    let found: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      const p = partOf(f.url, f.functionName);
      if (p.own) {
        found = p.part;
        break;
      }
    }
    if (found === undefined) {
      const f = byId.get(id)!.callFrame;
      found = partOf(f.url, f.functionName).part;
    }
    partCache.set(id, found);
    return found;
  };
  const time = new Map<string, number>();
  const leaves = new Map<string, Map<string, number>>();
  let t = profile.startTime;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    t += profile.timeDeltas[i];
    if (t < fromUs || t > toUs) return;
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') return;
    // a sample stands for the time since the one before it
    const dt = profile.timeDeltas[i];
    const p = part(id);
    time.set(p, (time.get(p) ?? 0) + dt);
    const leaf = partOf(f.url, f.functionName).part;
    if (leaf !== p) {
      let m = leaves.get(p);
      if (!m) leaves.set(p, (m = new Map()));
      m.set(leaf, (m.get(leaf) ?? 0) + dt);
    }
    busy += dt;
  });
  return [...time]
    .map(([p, us]) => {
      const perRequest = (v: number) => (requests > 0 ? Number((v / requests).toFixed(2)) : 0);
      const within = [...(leaves.get(p) ?? [])]
        .sort((a, b) => b[1] - a[1])
        .slice(0, WITHIN)
        .map(([leaf, v]) => ({ part: leaf, usPerRequest: perRequest(v) }));
      return {
        part: p,
        usPerRequest: perRequest(us),
        share: busy > 0 ? Number((us / busy).toFixed(3)) : 0,
        ...(within.length > 0 && { within }),
      };
    })
    .sort((a, b) => b.usPerRequest - a.usPerRequest);
}
