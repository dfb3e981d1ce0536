export * from './time-to-production.logic';
export * from './time-to-production.migration';
export * from './time-to-production-from-event-log.migration';
export * from './first-production-enable.read-model';
