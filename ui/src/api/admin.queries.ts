import type { Schemas, Subscription } from '@berth/openapi';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { type AdminUserListParams, adminKeys, pageQuery, paymentKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

export type AdminPaymentSettings = Schemas['AdminPaymentSettings'];
export type AdminPaymentSettingsUpdate = Schemas['AdminPaymentSettingsUpdate'];
export type AdminMetaMaskOrder = Schemas['AdminMetaMaskOrder'];
export type AdminMetaMaskOrderList = Schemas['AdminMetaMaskOrderList'];
export type MetaMaskOrderStatus = AdminMetaMaskOrder['status'];
export type AdminUser = Schemas['AdminUser'];
export type AdminUserList = Schemas['AdminUserList'];
export type GrantPlanRequest = Schemas['GrantPlanRequest'];

export type OperatorCapability = Schemas['OperatorInstanceCapabilities']['types'][number];

/**
 * GET /api/admin/capabilities: each instance type, with the customer's reason and the operator's detail,
 * and where backups are kept.
 */
export function useOperatorCapabilitiesQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.capabilities(),
    queryFn: () => unwrap(client.GET('/api/admin/capabilities')),
  });
}

export type AdminRegions = Schemas['AdminRegions'];
export type AdminRegion = AdminRegions['regions'][number];

/** GET /api/admin/regions: every region, whether customers can deploy there, and its nodes (swarm). */
export function useAdminRegionsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.regions(),
    queryFn: () => unwrap(client.GET('/api/admin/regions')),
  });
}

export type NodeAction = { action: 'drain' | 'activate'; nodeId: string };

/**
 * Drains a swarm node (its instances are moved to other servers by jobs) or puts it back in service;
 * answers the server's words. The regions are read again afterwards.
 */
export function useNodeActionMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<{ message: string }, Error, NodeAction>({
    mutationFn: ({ action, nodeId }) => {
      const params = { path: { nodeId } };
      return action === 'drain'
        ? unwrap(client.POST('/api/admin/regions/nodes/{nodeId}/drain', { params }))
        : unwrap(client.POST('/api/admin/regions/nodes/{nodeId}/activate', { params }));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.regions() }),
  });
}

/** Users per page of the admin user list (the server's default). */
export const ADMIN_USER_PAGE_SIZE = 20;

/** GET /api/admin/payment-settings: switches, keys, availability, prices, currency, MetaMask receiver. */
export function useAdminPaymentSettingsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.paymentSettings(),
    queryFn: () => unwrap(client.GET('/api/admin/payment-settings')),
  });
}

/** PUT /api/admin/payment-settings; the public settings (prices, methods) of the billing pages follow. */
export function useUpdateAdminPaymentSettingsMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<AdminPaymentSettings, Error, AdminPaymentSettingsUpdate>({
    mutationFn: (body) => unwrap(client.PUT('/api/admin/payment-settings', { body })),
    onSuccess: (settings) => {
      queryClient.setQueryData(adminKeys.paymentSettings(), settings);
      return queryClient.invalidateQueries({ queryKey: paymentKeys.settings() });
    },
  });
}

/** GET /api/admin/payments/metamask; `status` '' lists every order that got a transaction. */
export function useAdminMetaMaskOrdersQuery(status: MetaMaskOrderStatus | '') {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.metamaskOrderList(status),
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/payments/metamask', {
          params: { query: status ? { status } : {} },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

export type MetaMaskReviewAction =
  | { action: 'verify'; id: string }
  | { action: 'approve'; id: string }
  | { action: 'reject'; id: string; reason?: string };

/** Verify now, Approve or Reject one MetaMask order; every list of orders is refreshed afterwards. */
export function useMetaMaskReviewMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<AdminMetaMaskOrder, Error, MetaMaskReviewAction>({
    mutationFn: (input) => {
      const params = { path: { id: input.id } };
      if (input.action === 'verify')
        return unwrap(client.POST('/api/admin/payments/metamask/{id}/verify', { params }));
      if (input.action === 'approve')
        return unwrap(client.POST('/api/admin/payments/metamask/{id}/approve', { params }));
      return unwrap(
        client.POST('/api/admin/payments/metamask/{id}/reject', {
          params,
          body: input.reason ? { reason: input.reason } : {},
        }),
      );
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.metamaskOrders() }),
  });
}

/** GET /api/admin/users: one page of users with plan, standing and instances. */
export function useAdminUsersQuery(params: AdminUserListParams) {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.userList(params),
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/users', {
          params: { query: pageQuery(params) },
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** POST /api/admin/users/{id}/plan: a plan by hand, at once (no payment, no invoice). */
export function useGrantPlanMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Subscription, Error, { id: string } & GrantPlanRequest>({
    mutationFn: ({ id, plan, billingCycle }) =>
      unwrap(
        client.POST('/api/admin/users/{id}/plan', { params: { path: { id } }, body: { plan, billingCycle } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.users() }),
  });
}

/** DELETE /api/admin/users/{id}/plan: the plan ends at once and the user's instances are suspended. */
export function useRevokePlanMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation<Subscription, Error, { id: string }>({
    mutationFn: ({ id }) => unwrap(client.DELETE('/api/admin/users/{id}/plan', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.users() }),
  });
}
