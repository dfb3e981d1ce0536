export * from './batch-applier';
export * from './classify-messages';
export * from './partition-consumer';
export * from './rebuild';
export * from './stage-cost';
