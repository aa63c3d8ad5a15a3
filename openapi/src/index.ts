export {
  API_TIMEOUT_MS,
  type ApiClient,
  type ApiClientOptions,
  type ApiPaths,
  createApiClient,
  type Schemas,
} from './client.ts';
export type { components, operations, paths } from './schema.gen.ts';

import type { components } from './schema.gen.ts';

// Named aliases for the shapes the UI and API users handle most.
export type User = components['schemas']['User'];
export type Subscription = components['schemas']['Subscription'];
export type SubscriptionStatus = components['schemas']['SubscriptionStatus'];
export type AuthResult = components['schemas']['AuthResult'];
export type ApiError = components['schemas']['Error'];
export type RegisterRequest = components['schemas']['RegisterRequest'];
export type LoginRequest = components['schemas']['LoginRequest'];
