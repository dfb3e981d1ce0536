/*
 * The configuration table of docs/configuration.md against the config class: the table names exactly the settable fields of
 * AppConfig (the properties class-validator validates, read from its metadata at run time), and each default
 * it gives is the class's. A variable added to AppConfig and not documented fails here.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { AppConfig } from '@flaglens/config';

interface Row {
  variable: string;
  default: string;
  meaning: string;
}

/** The rows of the first table under the `# Configuration` heading. */
function configurationTable(doc: string): Row[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => /^#{1,2}\s+Configuration\s*$/.test(l));
  if (start < 0) throw new Error('docs/configuration.md has no "# Configuration" heading');
  const rows: Row[] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (/^#{1,2}\s/.test(line)) break;
    if (!line.startsWith('|')) {
      if (inTable) break;
      continue;
    }
    inTable = true;
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split('|')
      .map((c) => c.trim());
    if (cells.every((c) => /^:?-+:?$/.test(c))) continue; // the separator line
    const name = /^`([A-Z0-9_]+)`$/.exec(cells[0] ?? '');
    if (!name) continue; // the header line
    rows.push({ variable: name[1], default: cells[1] ?? '', meaning: cells[2] ?? '' });
  }
  return rows;
}

/** The properties of AppConfig that class-validator validates: every variable that can be set. */
function settableFields(): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(AppConfig, '', true, false);
  return [...new Set(metadata.map((m) => m.propertyName))].sort();
}

describe('the configuration table (docs/configuration.md)', () => {
  const rows = configurationTable(readFileSync(join(__dirname, '..', 'docs', 'configuration.md'), 'utf8'));
  const defaults = new AppConfig() as unknown as Record<string, unknown>;

  it('reads the config class and the table', () => {
    expect(settableFields().length).toBeGreaterThan(10);
    expect(rows.length).toBeGreaterThan(10);
  });

  it('names every settable field of AppConfig, once, and nothing else', () => {
    const documented = rows.map((r) => r.variable);
    expect(documented.filter((v, i) => documented.indexOf(v) !== i)).toEqual([]);
    expect([...documented].sort()).toEqual(settableFields());
  });

  it("gives each variable the class's default", () => {
    const mismatches = rows.flatMap((r) => {
      const value = defaults[r.variable];
      const expected = value === undefined ? '(unset…)' : `\`${String(value)}\``;
      const ok = value === undefined ? r.default.startsWith('(unset') : r.default === expected;
      return ok ? [] : [`${r.variable}: docs/configuration.md says ${r.default}, the class ${expected}`];
    });
    expect(mismatches).toEqual([]);
  });

  it('gives each variable a meaning', () => {
    expect(rows.filter((r) => r.meaning.length === 0).map((r) => r.variable)).toEqual([]);
  });
});
