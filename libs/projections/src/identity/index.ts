export * from './identity.logic';
export * from './identity-seed';
export * from './identity.migration';
export * from './identity.projection';
export * from './identity.read-model';
export * from './identity.sql';
export * from './personal-access-tokens';
export * from './project-access.read-model';
