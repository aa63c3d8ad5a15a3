import { useQuery } from '@tanstack/react-query';
import { unwrap } from './api-error.ts';
import { paymentKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

/** Currency, monthly prices, yearly discounts and payment methods (spec customer-area §3 Billing settings). */
export function usePaymentSettingsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: paymentKeys.settings(),
    queryFn: () => unwrap(client.GET('/api/payments/settings')),
  });
}

/** The user's invoices (spec customer-area §3 Invoice); empty until a payment provider takes money. */
export function useBillingHistoryQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: paymentKeys.billingHistory(),
    queryFn: () => unwrap(client.GET('/api/payments/billing-history')),
  });
}
