export * from './lifecycle.logic';
export * from './lifecycle.migration';
export * from './lifecycle.projection';
export * from './lifecycle.read-model';
