export * from './overview.read-model';
export * from './overview.logic';
