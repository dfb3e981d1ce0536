export * from './project-environments.logic';
export * from './project-environments.migration';
export * from './project-environments.projection';
