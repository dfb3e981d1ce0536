export * from './sdk-usage.logic';
export * from './sdk-usage.migration';
export * from './sdk-usage.projection';
