export * from './project-status.logic';
export * from './project-status.read-model';
