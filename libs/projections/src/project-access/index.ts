export * from './project-access.logic';
export * from './project-access.migration';
export * from './project-access.projection';
export * from './project-access.reader';
