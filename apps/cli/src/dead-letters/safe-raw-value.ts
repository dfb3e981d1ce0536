import { terminalText } from '../terminal-text';

/**
 * A raw message value for a terminal: UTF-8 JSON-escaped, then everything a terminal may act on escaped
 * (`terminalText`), truncated; bytes that are not UTF-8 are shown as base64.
 */
export function safeRawValue(value: Buffer | null, max = 2000): string {
  if (value === null) return '(null)';
  if (value.length === 0) return '(empty)';
  const text = value.toString('utf8');
  const isText = Buffer.from(text, 'utf8').equals(value);
  const shown = isText
    ? terminalText(JSON.stringify(text.slice(0, max)).slice(1, -1))
    : `base64:${value.subarray(0, max).toString('base64')}`;
  const cut = isText ? text.length > max : value.length > max;
  return cut ? `${shown}… (${value.length} bytes, truncated)` : shown;
}
