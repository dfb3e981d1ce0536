/** Encodes one field for Postgres COPY ... FROM STDIN in text format. */
export function copyField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v !== 'string') return String(v);
  // backslash first, then the characters COPY text treats as delimiters
  return /[\\\t\n\r]/.test(v)
    ? v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : v;
}

/**
 * A text[] value in array literal syntax (each element quoted, `"` and `\` escaped), or null for an empty
 * list; pass the result through `copyField` for COPY.
 */
export function arrayLiteral(values: readonly string[]): string | null {
  if (values.length === 0) return null;
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

const BACKSLASH = 0x5c;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Writes COPY text rows into one growing Buffer, field by field, without building a string per row: plain
 * ASCII text and integers are stored byte by byte from JavaScript (a `Buffer#write` per field costs a call
 * into C++ each, a string per row costs its allocation); anything else goes through `copyField`.
 */
export class CopyTextWriter {
  private buf: Buffer;
  private len = 0;
  private rowStarted = false;

  constructor(sizeHint: number) {
    this.buf = Buffer.allocUnsafe(Math.max(sizeHint, 64));
  }

  /** The rows written so far (a view of the writer's buffer). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }

  /** Ends the row: a newline. The next field starts a row. */
  endRow(): void {
    this.room(1);
    this.buf[this.len++] = LF;
    this.rowStarted = false;
  }

  /** A tab before every field of a row but its first. */
  private separate(): void {
    if (this.rowStarted) {
      this.room(1);
      this.buf[this.len++] = TAB;
    } else this.rowStarted = true;
  }

  /** A field: null as `\N`, text escaped, an integer in decimal, anything else as `String` renders it. */
  field(v: string | number | boolean | null | undefined): void {
    this.separate();
    if (v === null || v === undefined) this.null();
    else if (typeof v === 'string') this.string(v);
    else if (typeof v === 'number' && Number.isSafeInteger(v)) this.integer(v);
    else this.string(String(v));
  }

  /**
   * A field of UTF-8 text given as bytes (a message value as received): copied as it is when it holds no byte
   * COPY treats specially (a backslash, tab, newline or carriage return), else escaped like any text.
   */
  utf8(b: Buffer): void {
    if (
      b.indexOf(BACKSLASH) !== -1 ||
      b.indexOf(LF) !== -1 ||
      b.indexOf(TAB) !== -1 ||
      b.indexOf(CR) !== -1
    ) {
      this.field(b.toString('utf8'));
      return;
    }
    this.separate();
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  /** NULL: `\N`. */
  private null(): void {
    this.room(2);
    this.buf[this.len++] = BACKSLASH;
    this.buf[this.len++] = 0x4e; // N
  }

  private string(s: string): void {
    const n = s.length;
    // escaped, every code unit takes at most 3 bytes (an escape 2, a character 1 to 3)
    this.room(n * 3);
    const buf = this.buf;
    let at = this.len;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80 || c === BACKSLASH || c === TAB || c === LF || c === CR) {
        // not plain ASCII: the whole field again, escaped and encoded (what was stored so far is overwritten)
        this.len += buf.write(copyField(s), this.len, 'utf8');
        return;
      }
      buf[at++] = c;
    }
    this.len = at;
  }

  private integer(v: number): void {
    this.room(17); // a sign and 16 digits: the longest safe integer
    const buf = this.buf;
    let n = v;
    if (n < 0) {
      buf[this.len++] = 0x2d; // -
      n = -n;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = (t - (t % 10)) / 10) digits++;
    for (let i = this.len + digits - 1; i >= this.len; i--) {
      const d = n % 10;
      buf[i] = 0x30 + d;
      n = (n - d) / 10; // exact: a multiple of 10 divided by 10
    }
    this.len += digits;
  }
}
