/**
 * What changed in a project between two instants, read from its events in (T1, T2]: which event types count
 * as a flag added, enabled, archived, a member changed. Pure (the project page's "Compare two instants").
 */

/** The fields of an event (the search route's JSON) the rule reads. */
export interface ProjectEvent {
  id: number;
  createdAt: string;
  type: string;
  project: string | null;
  featureName: string | null;
  environment: string | null;
  createdBy: string;
  data: unknown;
}

export type ChangeKind =
  'added' | 'moved-in' | 'moved-out' | 'enabled' | 'disabled' | 'archived' | 'revived' | 'deleted' | 'member';

/** The kinds in the order the page lists their counts, with the words it uses. */
export const CHANGE_KINDS: { kind: ChangeKind; title: string }[] = [
  { kind: 'added', title: 'added' },
  { kind: 'moved-in', title: 'moved in' },
  { kind: 'moved-out', title: 'moved out' },
  { kind: 'enabled', title: 'enabled' },
  { kind: 'disabled', title: 'disabled' },
  { kind: 'archived', title: 'archived' },
  { kind: 'revived', title: 'revived' },
  { kind: 'deleted', title: 'deleted' },
  { kind: 'member', title: 'member change(s)' },
];

export interface Change {
  kind: ChangeKind;
  /** the event it comes from */
  eventId: number;
  createdAt: string;
  type: string;
  createdBy: string;
  flag: string | null;
  environment: string | null;
}

const FLAG_TYPES: Record<string, ChangeKind> = {
  'feature-created': 'added',
  'feature-environment-enabled': 'enabled',
  'feature-environment-disabled': 'disabled',
  'feature-archived': 'archived',
  'feature-revived': 'revived',
  'feature-deleted': 'deleted',
};

/** Who may act in the project: users and groups added, removed, or given other roles. */
export const MEMBER_TYPES = new Set([
  'project-user-added',
  'project-user-removed',
  'project-user-role-changed',
  'project-group-added',
  'project-group-removed',
  'project-group-role-changed',
  'project-access-added',
  'project-access-updated',
  'project-access-user-roles-updated',
  'project-access-group-roles-updated',
  'project-access-user-roles-deleted',
  'project-access-group-roles-deleted',
]);

/** The change an event of `project` makes, or null when it is none of the kinds above. */
export function classify(e: ProjectEvent, project: string): Change | null {
  let kind: ChangeKind | undefined = FLAG_TYPES[e.type];
  if (e.type === 'feature-project-change') {
    // the search finds a move under both projects; the event's project is the new one
    const d = (e.data ?? {}) as { oldProject?: unknown; newProject?: unknown };
    const to = typeof d.newProject === 'string' ? d.newProject : e.project;
    kind = to === project ? 'moved-in' : d.oldProject === project ? 'moved-out' : undefined;
  } else if (e.project !== project) kind = undefined;
  else if (MEMBER_TYPES.has(e.type)) kind = 'member';
  if (!kind) return null;
  return {
    kind,
    eventId: e.id,
    createdAt: e.createdAt,
    type: e.type,
    createdBy: e.createdBy,
    flag: e.featureName,
    environment: kind === 'enabled' || kind === 'disabled' ? e.environment : null,
  };
}

const ms = (t: string) => Date.parse(t);

/** The changes of `project` by the events stamped after `t1` and at or before `t2`, oldest first. */
export function changesBetween(events: ProjectEvent[], project: string, t1: string, t2: string): Change[] {
  const from = ms(t1);
  const to = ms(t2);
  return events
    .filter((e) => ms(e.createdAt) > from && ms(e.createdAt) <= to)
    .sort((a, b) => ms(a.createdAt) - ms(b.createdAt) || a.id - b.id)
    .map((e) => classify(e, project))
    .filter((c): c is Change => c !== null);
}

export function countByKind(changes: Change[]): Record<ChangeKind, number> {
  const n = Object.fromEntries(CHANGE_KINDS.map((k) => [k.kind, 0])) as Record<ChangeKind, number>;
  for (const c of changes) n[c.kind]++;
  return n;
}
