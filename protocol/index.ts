export * from './elements.js';
export * from './errors.js';
export * from './helperRpc.js';
export * from './limits.js';
export * from './screen.js';
export * from './selector.js';
export * from './tools.js';
export * from './uiChannel.js';
