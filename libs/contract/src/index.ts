import 'reflect-metadata';

export * from './client-metrics-data.dto';
export * from './client-register-data.dto';
export * from './date-time';
export * from './event-json-schema';
export * from './event-key';
export * from './event-limits';
export * from './event-types';
export * from './feature-event.dto';
export * from './feature-event.fast-validator';
export * from './feature-event.validation';
export * from './flag-event';
export * from './parse-event';
export * from './sdk-payload.validator';
export * from './tag.dto';
export * from './validation-issues';
export * from './well-formed-text.validator';
export * from './debezium';
