export * from './kafka-client';
export * from './topic-admin';
export * from './kafka-security';
