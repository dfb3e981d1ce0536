export * from './flag-state.logic';
export * from './flag-state.migration';
export * from './flag-state.projection';
export * from './flag-state.read-model';
