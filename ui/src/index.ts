export { authKeys } from './api/query-keys.ts';
export { App } from './app/app.tsx';
export { preloadSignedInPage } from './app/app-routes.tsx';
export type {
  HostSettings,
  InstanceCounts,
  Platform,
  SecretName,
  SecretStore,
  TokenStore,
} from './platform/platform.ts';
export type { ServerRenderInfo, ServerRenderState } from './platform/server-render.tsx';
export { THEME_STORAGE_KEY } from './theme/color-mode-provider.tsx';
