export { App } from './app/app.tsx';
export type {
  HostSettings,
  InstanceCounts,
  Platform,
  SecretName,
  SecretStore,
  TokenStore,
} from './platform/platform.ts';
export { THEME_STORAGE_KEY } from './theme/color-mode-provider.tsx';
