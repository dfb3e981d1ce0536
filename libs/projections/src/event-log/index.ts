export * from './event-wire';
export * from './event-log.projection';
export * from './event-log.read-model';
export * from './event-log.migration';
