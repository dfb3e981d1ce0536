export * from './event-log';
export * from './identity';
export * from './projection';
export * from './registry';
export * from './change-feed';
