export * from './personal-dashboard.logic';
export * from './personal-dashboard.read-model';
