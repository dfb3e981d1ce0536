export * from './overview.read-model';
