export {
  API_TIMEOUT_MS,
  type ApiClient,
  type ApiClientOptions,
  type ApiPaths,
  createApiClient,
  REFRESH_PATH,
  type Schemas,
  type SessionTokens,
} from './client.ts';
export type { components, operations, paths } from './schema.gen.ts';
export {
  type BerthClient,
  type BerthClientOptions,
  type BerthError,
  type BerthInstance,
  type BerthPaths,
  type BerthSchemas,
  createBerthClient,
} from './v1.ts';

import type { components } from './schema.gen.ts';

// Named aliases for the shapes the UI and API users handle most.
export type User = components['schemas']['User'];
export type Subscription = components['schemas']['Subscription'];
export type SubscriptionStatus = components['schemas']['SubscriptionStatus'];
export type AuthResult = components['schemas']['AuthResult'];
export type ApiError = components['schemas']['Error'];
export type RegisterRequest = components['schemas']['RegisterRequest'];
export type LoginRequest = components['schemas']['LoginRequest'];
export type Instance = components['schemas']['Instance'];
export type InstanceList = components['schemas']['InstanceList'];
export type InstanceAccess = components['schemas']['InstanceAccess'];
export type InstanceCapabilities = components['schemas']['InstanceCapabilities'];
export type DeployInstanceRequest = components['schemas']['DeployInstanceRequest'];
export type UpdateInstanceRequest = components['schemas']['UpdateInstanceRequest'];
export type ChangeInstancePasswordRequest = components['schemas']['ChangeInstancePasswordRequest'];
export type CanCreateInstance = components['schemas']['CanCreateInstance'];

/**
 * The `data` of an `event: instance` message on the notification stream (GET /api/notifications/stream):
 * one of the user's instances changed status; `deleted` once it is gone. Not in openapi.json (SSE).
 */
export interface InstanceStreamEvent {
  id: string;
  status: Instance['status'] | 'deleted';
  statusMessage: string | null;
  /** Present when a backup of the instance (or a restore from one) moved on: its progress. */
  backup?: {
    id: string;
    status: 'running' | 'complete' | 'failed' | 'restoring' | 'restored' | 'restore-failed';
    step: string | null;
    bytes: number;
    error: string | null;
  };
}
