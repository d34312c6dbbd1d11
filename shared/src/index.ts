export * from './common';
export * from './problem';
export * from './terminal';
export * from './merchant';
export * from './platform';
export * from './link';
export * from './ops';
export * from './capacity';
