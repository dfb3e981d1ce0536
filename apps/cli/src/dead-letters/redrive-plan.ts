import type { EventFormat } from '@flaglens/contract';
import { classifyMessages, type RedriveItem } from '@flaglens/pipeline';

export interface StoredDeadLetter {
  id: number;
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
}

export interface RedrivePlan {
  /** now valid: to apply through the normal path */
  items: RedriveItem[];
  /** still invalid under the current configuration, with the reason */
  stillInvalid: { deadLetterId: number; code: string; reason: string }[];
}

/**
 * Re-validates stored raw values with the current configuration (the same classification the projector
 * uses). Pure.
 */
export function planRedrive(
  rows: StoredDeadLetter[],
  opts: { allowUnknownTypes: boolean; maxBytes: number; format?: EventFormat },
): RedrivePlan {
  const plan: RedrivePlan = { items: [], stillInvalid: [] };
  for (const r of rows) {
    const { accepted, dead, refused } = classifyMessages(
      r.topic,
      r.partition,
      [{ offset: r.offset, key: r.key, value: r.value }],
      opts,
    );
    if (accepted.length === 1) plan.items.push({ deadLetterId: r.id, event: accepted[0] });
    else if (refused)
      plan.stillInvalid.push({ deadLetterId: r.id, code: 'misconfigured-topic', reason: refused.reason });
    else plan.stillInvalid.push({ deadLetterId: r.id, code: dead[0].code, reason: dead[0].reason });
  }
  return plan;
}
