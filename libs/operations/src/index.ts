export * from './operations.types';
export * from './partition-state.logic';
export * from './dead-letters.read-model';
export * from './dead-letter.view';
export * from './consumer-positions.read-model';
