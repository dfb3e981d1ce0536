import { ConsoleLogger, type LogLevel } from '@nestjs/common';

/**
 * Text from events, the broker or the database, made safe to print on an operator's terminal: every
 * character a terminal may act on is written as an escape instead — C0 controls (ESC starts ANSI/OSC
 * sequences: colours, cursor moves, window titles, hyperlinks), DEL, C1 controls (U+009B is a one-character
 * CSI), line and paragraph separators, bidirectional controls (text that reads differently than it is)
 * and lone surrogates. Tab, newline and carriage return become `\t`, `\n`, `\r`; the rest `\uXXXX`.
 *
 * Hand-written (one regular expression): the libraries at hand strip ANSI sequences (strip-ansi) rather
 * than show them, and leave bare C0/C1 controls and bidi controls through.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function terminalText(text: string): string {
  return text.replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON for a terminal: the same value (JSON.parse gives it back), with the characters above escaped. */
export function terminalJson(value: unknown): string {
  // JSON.stringify escapes C0 controls and lone surrogates itself; what is left can only be inside strings,
  // where `\uXXXX` is a valid escape of the same character
  return terminalText(JSON.stringify(value));
}

/**
 * The CLI's Nest logger (warnings and errors of the pipeline and the commands, which quote events): no
 * colours, every line through `terminalText`, every level on stderr (Nest's ConsoleLogger writes all but
 * errors to stdout, which is the command's output: `--json` prints one JSON document there and nothing else).
 */
export class TerminalLogger extends ConsoleLogger {
  constructor(logLevels: LogLevel[]) {
    super({ colors: false, logLevels });
  }

  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }

  protected override formatMessage(...args: Parameters<ConsoleLogger['formatMessage']>): string {
    const text = super.formatMessage(...args);
    return (
      text
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => terminalText(line))
        .join('\n') + '\n'
    );
  }
}
