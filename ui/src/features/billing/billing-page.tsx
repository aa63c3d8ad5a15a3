import { Alert, Box, Container, Grid, Stack, Typography } from '@mui/material';
import { type RefObject, useEffect, useRef, useState } from 'react';
import { usePaymentSettingsQuery } from '../../api/payments.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { type BillingCycle, PLAN_OFFERS, plansFromSettings } from '../pricing/pricing.ts';
import { CycleToggle, PlanCard } from '../pricing/pricing-page.tsx';
import { useCurrentUser } from '../session/use-session.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { DOWNGRADE_BLOCKED_TEXT, offersAddonInstance, STATUS_ERROR_TEXT, savingsText } from './billing.ts';
import { BillingHistory } from './billing-history.tsx';
import { CurrentPlanCard, UsageCard } from './current-plan.tsx';
import { type PaymentIntent, PaymentMethodModal } from './payment-method-modal.tsx';
import { AddInstanceCard, PlanAction } from './plan-actions.tsx';

/** Scrolls the plans into view and moves the keyboard focus there (Subscribe Now, Renew Subscription). */
function focusSection(ref: RefObject<HTMLElement | null>) {
  const section = ref.current;
  if (!section) return;
  section.scrollIntoView?.({ behavior: 'smooth', block: 'start' });
  section.focus({ preventScroll: true });
}

/**
 * The Subscription and Billing page: current plan with its actions, usage,
 * plans with a monthly/yearly toggle, the Additional Instance offer, billing history and the payment
 * method modal that starts the payment.
 */
export function BillingPage() {
  const user = useCurrentUser();
  const { subscription, standing, status } = useCurrentSubscription();
  const settings = usePaymentSettingsQuery();
  const toast = useToast();
  const [cycle, setCycle] = useState<BillingCycle>('monthly');
  const [intent, setIntent] = useState<PaymentIntent | null>(null);
  const [blocked, setBlocked] = useState(false);
  const plansRef = useRef<HTMLElement>(null);
  const plans = settings.data ? plansFromSettings(settings.data) : undefined;

  useEffect(() => {
    if (status.isError) toast.error(STATUS_ERROR_TEXT);
  }, [status.isError, toast]);

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 4, md: 6 } }}>
      <Typography variant="h4" component="h1" sx={{ mb: 3 }}>
        Subscription and Billing
      </Typography>

      <Grid container spacing={3} sx={{ mb: 4 }}>
        <Grid size={{ xs: 12, md: 6 }}>
          <CurrentPlanCard
            subscription={subscription}
            standing={standing}
            onChoosePlan={() => focusSection(plansRef)}
          />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <UsageCard subscription={subscription} standing={standing} />
        </Grid>
      </Grid>

      <LoadState
        query={settings}
        loading="Loading prices..."
        failed="We could not load the prices. Please try again."
        sx={{ mb: 4 }}
      />

      {settings.data && plans && (
        <Box
          ref={plansRef}
          component="section"
          aria-labelledby="plans-title"
          tabIndex={-1}
          sx={{ mb: 4, scrollMarginTop: 80, '&:focus': { outline: 'none' } }}
        >
          <Stack spacing={1} sx={{ alignItems: 'center', mb: 3 }}>
            <Typography id="plans-title" variant="h5" component="h2">
              Plans
            </Typography>
            <CycleToggle cycle={cycle} onChange={setCycle} />
            <Typography color="text.secondary">{savingsText(settings.data.yearlyDiscounts)}</Typography>
          </Stack>
          {blocked && (
            <Alert severity="error" sx={{ mb: 3 }} onClose={() => setBlocked(false)}>
              {DOWNGRADE_BLOCKED_TEXT}
            </Alert>
          )}
          <Grid container spacing={3} sx={{ justifyContent: 'center' }}>
            {PLAN_OFFERS.map((offer) => (
              <Grid key={offer.id} size={{ xs: 12, md: 5 }}>
                <PlanCard
                  offer={offer}
                  plans={plans}
                  cycle={cycle}
                  user={user}
                  action={
                    <PlanAction
                      offer={offer}
                      subscription={subscription}
                      standing={standing}
                      cycle={cycle}
                      onPay={setIntent}
                      onBlocked={() => setBlocked(true)}
                    />
                  }
                />
              </Grid>
            ))}
          </Grid>
          {offersAddonInstance(subscription, standing) && (
            <Box sx={{ mt: 3 }}>
              <AddInstanceCard plans={plans} subscription={subscription} onPay={setIntent} />
            </Box>
          )}
        </Box>
      )}

      <BillingHistory />

      <PaymentMethodModal intent={intent} methods={settings.data?.methods} onClose={() => setIntent(null)} />
    </Container>
  );
}
