import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { terminalJson, terminalText } from './terminal-text';
import { safeRawValue } from './dead-letters/safe-raw-value';

/** Characters a terminal may act on (tab and newline only as the output's own layout). */
// eslint-disable-next-line no-control-regex
const ACTIVE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Text a hostile producer can put into an event, a dead letter's reason, a client id... (name, text) */
const HOSTILE: [string, string][] = [
  ['clear screen', '\u001b[2J\u001b[H'],
  ['OSC 8 hyperlink', '\u001b]8;;https://evil.example\u0007click me\u001b]8;;\u0007'],
  ['window title', '\u001b]0;owned\u0007'],
  ['C1 CSI', '\u009b31mred'],
  ['DEL', 'del\u007f'],
  ['backspace, CR', 'back\bspace\r'],
  ['right-to-left override', 'evil\u202efdp.exe'],
  ['bidi isolates', 'isolate\u2066x\u2069'],
  ['line/paragraph separators', 'line\u2028sep\u2029'],
  ['lone surrogates', 'lone \ud800 surrogate \udc00'],
  ['tab, newline', 'tab\tnew\nline'],
];

describe('terminal text (CLI output)', () => {
  it.each(HOSTILE)('escapes %s: nothing a terminal acts on is left', (_, s) => {
    const shown = terminalText(s);
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).not.toMatch(/[\ud800-\udfff]/);
  });

  it('leaves ordinary text, emoji and other scripts alone', () => {
    const text = 'flag "checkout.new-flow" in project café — 日本語 😀 a\\b';
    expect(terminalText(text)).toBe(text);
  });

  it('shows escapes readably', () => {
    expect(terminalText('a\tb\nc\u001b[31m\u009b')).toBe('a\\tb\\nc\\u001b[31m\\u009b');
  });

  it.each(HOSTILE)('JSON with %s: escaped, and JSON.parse gives the same value back', (_, s) => {
    const value = { reason: s, nested: [s] };
    const json = terminalJson(value);
    expect(json).not.toMatch(ACTIVE);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it.each(HOSTILE)('dead-letters show: a raw value with %s is shown escaped', (_, s) => {
    expect(safeRawValue(Buffer.from(s, 'utf8'))).not.toMatch(ACTIVE);
  });
});

describe('TerminalLogger', () => {
  it('writes every level to stderr, never to stdout (where --json prints its one document)', () => {
    const child = spawnSync(
      process.execPath,
      [
        '-r',
        'ts-node/register/transpile-only',
        '-e',
        `const { TerminalLogger } = require(${JSON.stringify(join(__dirname, 'terminal-text'))});
         const log = new TerminalLogger(['log', 'warn', 'error']);
         log.warn('careful \\u001b[31m', 'Redrive'); log.log('note'); log.error('broken');`,
      ],
      { encoding: 'utf8', env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' } },
    );
    expect(child.status).toBe(0);
    expect(child.stdout).toBe('');
    expect(child.stderr).toMatch(/WARN \[Redrive\] careful \\u001b\[31m/);
    expect(child.stderr).toMatch(/LOG note/);
    expect(child.stderr).toMatch(/ERROR broken/);
  });
});
