export * from './app-config';
export * from './clock';
