export * from './feature-types.logic';
export * from './feature-types.migration';
export * from './feature-types.projection';
