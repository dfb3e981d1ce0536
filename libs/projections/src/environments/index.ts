export * from './environments.logic';
export * from './environments.migration';
export * from './environments.projection';
