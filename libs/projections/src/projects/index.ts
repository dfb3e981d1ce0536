export * from './projects.logic';
export * from './projects.migration';
export * from './projects.projection';
export * from './projects.read-model';
