export * from './data-source';
export * from './pg-errors';
export * from './projection-versions';
export * from './active-version-pool';
