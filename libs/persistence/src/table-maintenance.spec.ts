import { maintenanceDue, vacuumCommand, type TableActivity } from './table-maintenance';

const table = (over: Partial<TableActivity>): TableActivity => ({
  schema: 'flaglens_v1',
  table: 't',
  estimatedRows: 0,
  changedSinceAnalyze: 0,
  insertedSinceVacuum: 0,
  deadRows: 0,
  ...over,
});

describe('maintenanceDue: autovacuum’s rules and defaults', () => {
  it('an untouched table is due for nothing', () => {
    expect(maintenanceDue(table({ estimatedRows: 1_000_000 }))).toMatchObject({
      analyze: false,
      vacuum: false,
    });
  });

  it('a table never analyzed (reltuples -1) is analyzed past 50 changes, vacuumed past 1,000 inserts', () => {
    expect(
      maintenanceDue(table({ estimatedRows: -1, changedSinceAnalyze: 50, insertedSinceVacuum: 50 })),
    ).toMatchObject({ analyze: false, vacuum: false });
    expect(
      maintenanceDue(table({ estimatedRows: -1, changedSinceAnalyze: 51, insertedSinceVacuum: 51 })),
    ).toMatchObject({ analyze: true, vacuum: false });
    expect(
      maintenanceDue(table({ estimatedRows: -1, changedSinceAnalyze: 1001, insertedSinceVacuum: 1001 })),
    ).toMatchObject({ analyze: true, vacuum: true });
  });

  it('analyzed past 50 + 10% of its rows changed', () => {
    const rows = 10_000_000;
    expect(maintenanceDue(table({ estimatedRows: rows, changedSinceAnalyze: 1_000_050 })).analyze).toBe(
      false,
    );
    expect(maintenanceDue(table({ estimatedRows: rows, changedSinceAnalyze: 1_000_051 })).analyze).toBe(true);
  });

  it('vacuumed past 50 + 20% of its rows dead (a table of 5,000 flags updated over and over)', () => {
    expect(maintenanceDue(table({ estimatedRows: 5000, deadRows: 1050 })).vacuum).toBe(false);
    expect(maintenanceDue(table({ estimatedRows: 5000, deadRows: 1051 }))).toMatchObject({
      vacuum: true,
      indexCleanup: true,
    });
    expect(vacuumCommand(maintenanceDue(table({ estimatedRows: 5000, deadRows: 1051 })))).toBe('VACUUM');
  });

  it('vacuumed past 1,000 + 20% of its rows inserted (an append-only log: its visibility map for index-only scans)', () => {
    const rows = 1_000_000;
    expect(maintenanceDue(table({ estimatedRows: rows, insertedSinceVacuum: 201_000 })).vacuum).toBe(false);
    expect(maintenanceDue(table({ estimatedRows: rows, insertedSinceVacuum: 201_001 }))).toMatchObject({
      vacuum: true,
      indexCleanup: false,
    });
    // its indexes hold no dead row's entry: they are left alone (a GIN index's pending list to its writers)
    expect(vacuumCommand(maintenanceDue(table({ estimatedRows: rows, insertedSinceVacuum: 201_001 })))).toBe(
      'VACUUM (INDEX_CLEANUP OFF)',
    );
  });
});
