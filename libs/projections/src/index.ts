export * from './event-log';
export * from './projection';
export * from './registry';
