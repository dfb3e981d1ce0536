export * from './event-log';
