import type { Schemas, Subscription } from '@berth/openapi';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { authKeys, paymentKeys, subscriptionKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

/** Currency, monthly prices, yearly discounts and payment methods. */
export function usePaymentSettingsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: paymentKeys.settings(),
    queryFn: () => unwrap(client.GET('/api/payments/settings')),
  });
}

/** The user's invoices; empty until a payment provider takes money. */
export function useBillingHistoryQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: paymentKeys.billingHistory(),
    queryFn: () => unwrap(client.GET('/api/payments/billing-history')),
  });
}

/** What is bought: a plan for a billing cycle, or one more instance on an active Starter plan. */
export type Purchase =
  | { plan: 'starter' | 'pro'; billingCycle: 'monthly' | 'yearly' }
  | { purchaseType: 'addon_instance' };

/** The redirect payment providers (MetaMask pays in the browser wallet instead). */
export type RedirectProvider = Schemas['CreatePaymentRequest']['provider'];

/** After a change of the subscription: the status, the profile's copy of it and the invoices are stale. */
function useRefreshSubscription() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: subscriptionKeys.all }),
      queryClient.invalidateQueries({ queryKey: paymentKeys.billingHistory() }),
      queryClient.invalidateQueries({ queryKey: authKeys.profile() }),
    ]);
}

/**
 * POST /api/payments/create-paypal-payment (every redirect provider despite its name): answers the
 * provider's page, or our own /payment-success page when a Stripe plan was changed in place.
 */
export function useCreatePaymentMutation() {
  const client = useApiClient();
  const refresh = useRefreshSubscription();
  return useMutation<
    Schemas['CreatePaymentResult'],
    Error,
    { purchase: Purchase; provider: RedirectProvider }
  >({
    mutationFn: ({ purchase, provider }) =>
      unwrap(client.POST('/api/payments/create-paypal-payment', { body: { ...purchase, provider } })),
    onSuccess: () => refresh(),
  });
}

/** PUT /api/subscriptions/cancel-at-period-end: true cancels renewal, false keeps renewing (Stripe only). */
export function useCancelAtPeriodEndMutation() {
  const client = useApiClient();
  const refresh = useRefreshSubscription();
  return useMutation<Subscription, Error, boolean>({
    mutationFn: (cancelAtPeriodEnd) =>
      unwrap(client.PUT('/api/subscriptions/cancel-at-period-end', { body: { cancelAtPeriodEnd } })),
    onSettled: () => refresh(),
  });
}

/** DELETE /api/payments/addon-instance: back to plain Starter (1 instance, base price). */
export function useRemoveAddonInstanceMutation() {
  const client = useApiClient();
  const refresh = useRefreshSubscription();
  return useMutation<Subscription, Error, void>({
    mutationFn: () => unwrap(client.DELETE('/api/payments/addon-instance')),
    onSettled: () => refresh(),
  });
}

/** A short-lived link to Stripe's customer portal (cards, invoices); 409 without a Stripe customer. */
export function useStripePortalMutation() {
  const client = useApiClient();
  return useMutation<{ url: string }, Error, void>({
    mutationFn: () => unwrap(client.POST('/api/payments/stripe/portal')),
  });
}
