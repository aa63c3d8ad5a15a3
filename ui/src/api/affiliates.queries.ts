import type { Schemas } from '@berth/openapi';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { unwrap } from './api-error.ts';
import { adminKeys, affiliateKeys, authKeys } from './query-keys.ts';
import { useApiClient } from './use-api-client.ts';

// The affiliate calls. A user without an affiliate profile gets 404, a visitor 401
// (the screens redirect on them): no retries for those.

const noRetryOn4xx = (count: number, error: unknown) =>
  count < 2 &&
  !(typeof error === 'object' && error !== null && 'status' in error && Number(error.status) < 500);

export type AffiliateDashboard = Schemas['AffiliateDashboard'];
export type AffiliateProfile = Schemas['AffiliateProfile'];
export type AffiliatePayout = Schemas['AffiliatePayout'];
export type AffiliateMonthlyStats = Schemas['AffiliateMonthlyStats'];
export type AffiliateRegisterRequest = Schemas['AffiliateRegisterRequest'];
export type AffiliatePaymentDetailsRequest = Schemas['AffiliatePaymentDetailsRequest'];
export type AdminAffiliatePayout = Schemas['AdminAffiliatePayout'];

export function useAffiliateDashboardQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: affiliateKeys.dashboard(),
    queryFn: () => unwrap(client.GET('/api/affiliates/dashboard')),
    retry: noRetryOn4xx,
  });
}

export function useAffiliateProfileQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: affiliateKeys.me(),
    queryFn: () => unwrap(client.GET('/api/affiliates/me')),
    retry: noRetryOn4xx,
  });
}

export function useAffiliateStatsQuery(year: number) {
  const client = useApiClient();
  return useQuery({
    queryKey: affiliateKeys.stats(year),
    queryFn: () => unwrap(client.GET('/api/affiliates/stats', { params: { query: { year } } })),
    retry: noRetryOn4xx,
  });
}

export function useAffiliatePayoutsQuery() {
  const client = useApiClient();
  return useQuery({
    queryKey: affiliateKeys.payouts(),
    queryFn: () => unwrap(client.GET('/api/affiliates/payouts')),
    retry: noRetryOn4xx,
  });
}

/** After a change: every affiliate figure and the profile (its affiliate flag) are stale. */
function useRefreshAffiliate() {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: affiliateKeys.all }),
      queryClient.invalidateQueries({ queryKey: authKeys.profile() }),
    ]);
}

export function useAffiliateRegisterMutation() {
  const client = useApiClient();
  const refresh = useRefreshAffiliate();
  return useMutation({
    /** `token`: the account just created and not signed in yet (the affiliate register form). */
    mutationFn: ({ body, token }: { body: AffiliateRegisterRequest; token?: string }) =>
      unwrap(
        client.POST('/api/affiliates/register', {
          body,
          ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
        }),
      ),
    onSuccess: () => refresh(),
  });
}

export function useUpdateReferralMutation() {
  const client = useApiClient();
  const refresh = useRefreshAffiliate();
  return useMutation({
    mutationFn: (body: Schemas['AffiliateReferralRequest']) =>
      unwrap(client.PUT('/api/affiliates/referral', { body })),
    onSuccess: () => refresh(),
  });
}

export function useUpdatePaymentDetailsMutation() {
  const client = useApiClient();
  const refresh = useRefreshAffiliate();
  return useMutation({
    mutationFn: (body: AffiliatePaymentDetailsRequest) =>
      unwrap(client.PUT('/api/affiliates/payment-details', { body })),
    onSuccess: () => refresh(),
  });
}

export function useGenerateCodeMutation() {
  const client = useApiClient();
  const refresh = useRefreshAffiliate();
  return useMutation({
    mutationFn: (force: boolean) =>
      unwrap(
        client.POST('/api/affiliates/generate-code', {
          params: { query: { force: force ? 'true' : 'false' } },
        }),
      ),
    onSuccess: () => refresh(),
  });
}

export function useRequestPayoutMutation() {
  const client = useApiClient();
  const refresh = useRefreshAffiliate();
  return useMutation({
    mutationFn: (amount: number) => unwrap(client.POST('/api/affiliates/payouts', { body: { amount } })),
    onSuccess: () => refresh(),
  });
}

/** Reports a referral click (sets the referral cookie); a failure only warns. */
export function useTrackClick() {
  const client = useApiClient();
  return useCallback(
    (code: string) =>
      unwrap(client.POST('/api/affiliates/track-click/{code}', { params: { path: { code } } })).catch(
        (error: unknown) => {
          console.warn('Referral click not recorded', error);
        },
      ),
    [client],
  );
}

export function useAdminAffiliatePayoutsQuery(status: 'pending' | 'completed' | 'failed' | 'all') {
  const client = useApiClient();
  return useQuery({
    queryKey: adminKeys.affiliatePayoutList(status),
    queryFn: () =>
      unwrap(
        client.GET('/api/admin/affiliate-payouts', {
          params: { query: status === 'all' ? {} : { status } },
        }),
      ),
  });
}

export function useProcessAffiliatePayoutMutation() {
  const client = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (
      action:
        | { id: string; complete: true; transactionId: string }
        | { id: string; complete: false; reason: string },
    ) =>
      action.complete
        ? unwrap(
            client.POST('/api/admin/affiliate-payouts/{id}/complete', {
              params: { path: { id: action.id } },
              body: { transactionId: action.transactionId },
            }),
          )
        : unwrap(
            client.POST('/api/admin/affiliate-payouts/{id}/fail', {
              params: { path: { id: action.id } },
              body: action.reason ? { reason: action.reason } : {},
            }),
          ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.affiliatePayouts() }),
  });
}
