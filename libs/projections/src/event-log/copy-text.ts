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
