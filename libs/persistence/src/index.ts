export { ensureDatabase } from './data-source';
export * from './connections';
export * from './database';
export * from './pg-errors';
export * from './projection-versions';
export * from './active-version-pool';
export * from './table-maintenance';
