export * from './identity-changes';
export * from './identity-seed';
export * from './identity-state';
export * from './identity.migration';
export * from './identity.projection';
export * from './identity.read-model';
export * from './identity.sql';
export * from './personal-access-tokens';
