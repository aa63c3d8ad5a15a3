export { App } from './app/app.tsx';
export type { Platform, TokenStore } from './platform/platform.ts';
