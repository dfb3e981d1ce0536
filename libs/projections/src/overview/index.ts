export * from './overview.read-model';
export * from './overview.rules';
export * from './overview-scope';
