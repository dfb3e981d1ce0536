export * from './data-source';
export * from './pg-errors';
