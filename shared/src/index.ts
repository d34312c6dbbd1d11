export * from './common';
export * from './problem';
export * from './terminal';
export * from './merchant';
export * from './platform';
export * from './ops';
export * from './capacity';
export * from './field';
