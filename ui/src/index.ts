export { App } from './app/app.tsx';
export type {
  HostSettings,
  InstanceCounts,
  Platform,
  SecretName,
  SecretStore,
  TokenStore,
} from './platform/platform.ts';
