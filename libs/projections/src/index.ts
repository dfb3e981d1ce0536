export * from './event-log';
export * from './projection';
export * from './registry';
export * from './change-feed';
