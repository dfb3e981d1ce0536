import { normaliseDateTime, toFlagEvent, type FlagEvent } from '@flaglens/contract';

/**
 * The event as the reference's event list serialises it: this key order, `createdAt` with milliseconds
 * and `Z`, `tags` defaulting to `[]` (semantics §1), then Unleash 7+'s `groupType` and `groupId` only when set
 * (7+ omits them when null, and 6.x has none: a 6.x answer is unchanged). Pure.
 */
export function toWireJson(e: FlagEvent): string {
  const wire: Record<string, unknown> = {
    id: e.id,
    type: e.type,
    createdBy: e.createdBy,
    createdAt: e.createdAt,
    createdByUserId: e.createdByUserId,
    data: e.data,
    preData: e.preData,
    tags: e.tags ?? [],
    featureName: e.featureName,
    project: e.project,
    environment: e.environment,
  };
  if (e.groupType !== undefined) wire.groupType = e.groupType;
  if (e.groupId !== undefined) wire.groupId = e.groupId;
  return JSON.stringify(wire);
}

/**
 * The wire JSON of a stored event body: the message value as the projector received it (already validated
 * then), or, for rows stored before bodies were kept raw, the wire JSON itself (rendering it is idempotent).
 */
export function wireFromStored(body: string): string {
  try {
    return toWireJson(toFlagEvent(JSON.parse(body) as Record<string, unknown>));
  } catch {
    // a body the serialiser cannot walk (e.g. nested deeper than its stack, stored before the contract
    // limited the depth): its fields spliced as they were received, so no stored event fails a list
    return wireFromRawFields(body);
  }
}

/**
 * The wire JSON of a stored body without walking its values: the top-level members are located by a
 * scan that only counts brackets, and `data`, `preData` and `tags` are copied as raw JSON text. Same keys,
 * order and defaults as `toWireJson`; scalar members are normalised as there.
 */
export function wireFromRawFields(body: string): string {
  const raw = topLevelMembers(body);
  const scalar = (k: string): string => {
    const v = raw.get(k);
    return v === undefined || v === 'null' ? 'null' : JSON.stringify(JSON.parse(v));
  };
  const createdAt = raw.get('createdAt');
  const parts = [
    `"id":${scalar('id')}`,
    `"type":${scalar('type')}`,
    `"createdBy":${scalar('createdBy')}`,
    `"createdAt":${createdAt === undefined ? 'null' : JSON.stringify(normaliseDateTime(JSON.parse(createdAt) as string))}`,
    `"createdByUserId":${scalar('createdByUserId')}`,
    `"data":${raw.get('data') ?? 'null'}`,
    `"preData":${raw.get('preData') ?? 'null'}`,
    `"tags":${raw.get('tags') === undefined || raw.get('tags') === 'null' ? '[]' : raw.get('tags')}`,
    `"featureName":${scalar('featureName')}`,
    `"project":${scalar('project')}`,
    `"environment":${scalar('environment')}`,
  ];
  for (const k of ['groupType', 'groupId']) {
    const v = raw.get(k);
    const text = v?.startsWith('"') ? (JSON.parse(v) as unknown) : undefined;
    if (typeof text === 'string' && text !== '') parts.push(`"${k}":${JSON.stringify(text)}`);
  }
  return `{${parts.join(',')}}`;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The raw JSON text of each member of a JSON object text (the last one of a repeated key wins, as JSON.parse). */
function topLevelMembers(text: string): Map<string, string> {
  const members = new Map<string, string>();
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && isSpace(text.charCodeAt(i))) i++;
  };
  const endOfString = (from: number): number => {
    // from: the index of the opening quote; returns the index after the closing one
    for (let j = from + 1; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === 0x5c) j++;
      else if (c === 0x22) return j + 1;
    }
    throw new SyntaxError('unterminated string');
  };
  skip();
  if (text.charCodeAt(i) !== 0x7b) throw new SyntaxError('not an object');
  i++;
  for (;;) {
    skip();
    if (text.charCodeAt(i) === 0x7d) break;
    const keyEnd = endOfString(i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = keyEnd;
    skip();
    i++; // ':'
    skip();
    const start = i;
    let depth = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) i = endOfString(i) - 1;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) {
        if (depth === 0) break;
        depth--;
      } else if (c === 0x2c && depth === 0) break;
    }
    members.set(key, text.slice(start, i).trimEnd());
    if (text.charCodeAt(i) === 0x2c) i++;
    else break;
  }
  return members;
}
