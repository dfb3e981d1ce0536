/**
 * The tiny markdown subset of the event summaries (`**bold**`, `[text](http(s) link)`, `` `code` ``) parsed
 * into a tree the page renders as elements and text nodes: event data is never HTML. Anything else, a link to
 * another scheme included, stays text as written. Pure.
 */
export type Md =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'bold'; children: Md[] }
  | { kind: 'link'; href: string; children: Md[] };

const LINK = /^\[([^\]\n]*)\]\(([^()\s]*)\)/;

/** The link's address when it is an absolute http(s) URL, else null. */
export function safeHref(url: string): string | null {
  if (!/^https?:\/\//i.test(url)) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

function push(out: Md[], text: string): void {
  if (!text) return;
  const last = out[out.length - 1];
  if (last?.kind === 'text') last.text += text;
  else out.push({ kind: 'text', text });
}

/** Inline content from `from` to the end; inside a link's text no further link is read. */
function inline(s: string, from: number, inLink: boolean): Md[] {
  const out: Md[] = [];
  let i = from;
  while (i < s.length) {
    if (s.startsWith('**', i)) {
      const close = s.indexOf('**', i + 2);
      if (close > i + 2) {
        const inner = inline(s.slice(0, close), i + 2, inLink);
        out.push({ kind: 'bold', children: inner });
        i = close + 2;
        continue;
      }
      push(out, '**');
      i += 2;
      continue;
    }
    const c = s[i];
    if (c === '`') {
      const close = s.indexOf('`', i + 1);
      if (close > i + 1) {
        out.push({ kind: 'code', text: s.slice(i + 1, close) });
        i = close + 1;
        continue;
      }
    }
    if (c === '[' && !inLink) {
      const m = LINK.exec(s.slice(i));
      if (m) {
        const href = safeHref(m[2]);
        const label = inline(m[1], 0, true);
        if (href) out.push({ kind: 'link', href, children: label });
        else push(out, m[0]);
        i += m[0].length;
        continue;
      }
    }
    push(out, c);
    i++;
  }
  return out;
}

export function parseMarkdown(text: string): Md[] {
  return inline(text ?? '', 0, false);
}

/** The text a reader sees (for tests and labels). */
export function plainText(nodes: Md[]): string {
  return nodes.map((n) => (n.kind === 'text' || n.kind === 'code' ? n.text : plainText(n.children))).join('');
}
