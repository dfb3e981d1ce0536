import type { PoolClient } from 'pg';

/** A timestamp column as the projections' pure logic handles it: ISO 8601 in UTC, with milliseconds. */
export const isoText = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

type ColumnType = 'text' | 'boolean' | 'int' | 'bigint' | 'timestamptz' | 'json';

/** A column of a keyed table and the row field it holds. */
export interface Column<Row> {
  field: keyof Row & string;
  column: string;
  type: ColumnType;
  /**
   * The value written on conflict, as SQL over `t` (the stored row) and `EXCLUDED` (the new one); default:
   * the new value.
   */
  onConflict?: string;
}

/**
 * A table of state rows keyed by one text column (a flag's state by its name, an environment by its name, a
 * project by its id), or of several rows per key (`many`: a project's environment links). `columns` name
 * every column the projection reads and writes, the key first.
 */
export interface KeyedTable<Row> {
  table: string;
  columns: readonly Column<Row>[];
  /** Several rows per key: writing a key replaces all of them. */
  many?: boolean;
}

const selectOf = <Row>(t: KeyedTable<Row>): string =>
  t.columns
    .map((c) =>
      c.type === 'timestamptz'
        ? `${isoText(c.column)} AS "${c.field}"`
        : c.type === 'json'
          ? `${c.column}::text AS "${c.field}"`
          : `${c.column} AS "${c.field}"`,
    )
    .join(', ');

const recordType = <Row>(t: KeyedTable<Row>): string =>
  t.columns.map((c) => `"${c.field}" ${c.type}`).join(', ');

/**
 * The stored rows of `keys` (every row with 'all'), keyed; `lock` takes them FOR UPDATE, in key order, so
 * concurrent batches lock shared rows in one order.
 */
export async function loadRows<Row>(
  c: PoolClient,
  t: KeyedTable<Row>,
  keys: readonly string[] | 'all',
  opts: { lock?: boolean } = {},
): Promise<Map<string, Row[]>> {
  const key = t.columns[0];
  const where = keys === 'all' ? '' : `WHERE ${key.column} = ANY($1::text[])`;
  const r = await c.query<Record<string, unknown>>(
    `SELECT ${selectOf(t)} FROM ${t.table} ${where} ORDER BY ${key.column}${opts.lock ? ' FOR UPDATE' : ''}`,
    keys === 'all' ? [] : [[...keys]],
  );
  const out = new Map<string, Row[]>();
  for (const raw of r.rows) {
    for (const col of t.columns)
      if (col.type === 'json' && typeof raw[col.field] === 'string')
        raw[col.field] = JSON.parse(raw[col.field] as string);
    const k = raw[key.field] as string;
    const list = out.get(k);
    if (list) list.push(raw as Row);
    else out.set(k, [raw as Row]);
  }
  return out;
}

/**
 * Writes rows: an upsert by key (each column takes the new value, or its `onConflict`), or for `many` tables
 * a replacement of every row of each key in `replace` (a key in `replace` without rows is emptied).
 */
export async function writeRows<Row>(
  c: PoolClient,
  t: KeyedTable<Row>,
  rows: readonly Row[],
  replace: readonly string[] = [],
): Promise<void> {
  const key = t.columns[0];
  const names = t.columns.map((col) => col.column).join(', ');
  const fields = t.columns.map((col) => `"${col.field}"`).join(', ');
  if (t.many && replace.length > 0)
    await c.query(`DELETE FROM ${t.table} WHERE ${key.column} = ANY($1::text[])`, [[...replace]]);
  if (rows.length === 0) return;
  const conflict = t.many
    ? ''
    : `ON CONFLICT (${key.column}) DO UPDATE SET ${t.columns
        .slice(1)
        .map((col) => `${col.column} = ${col.onConflict ?? `EXCLUDED.${col.column}`}`)
        .join(', ')}`;
  await c.query(
    `INSERT INTO ${t.table} AS t (${names})
     SELECT ${fields} FROM json_to_recordset($1::json) AS r(${recordType(t)}) ORDER BY "${key.field}"
     ${conflict}`,
    [JSON.stringify(rows)],
  );
}

/**
 * The load → reduce → write of keyed state rows that projections share: loads (and locks) the rows of
 * `keys`, hands them to the pure `reduce`, writes what it returns, and gives it back.
 */
export async function updateKeyedRows<Row, Result extends { rows: Row[] }>(
  c: PoolClient,
  t: KeyedTable<Row>,
  keys: readonly string[] | 'all',
  reduce: (current: Map<string, Row>) => Result,
): Promise<Result> {
  const loaded = await loadRows(c, t, keys, { lock: true });
  const current = new Map<string, Row>();
  for (const [k, list] of loaded) current.set(k, list[0]);
  const result = reduce(current);
  await writeRows(c, t, result.rows);
  return result;
}
