import type { Subscription } from '@berth/openapi';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Container,
  Grid,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { FILTER_PAGE_SIZE, useInstancesQuery } from '../../api/instances.queries.ts';
import { usePaymentSettingsQuery } from '../../api/payments.queries.ts';
import { Fact } from '../../components/fact.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import {
  type BillingCycle,
  formatMoney,
  PLAN_OFFERS,
  type PlanOffer,
  plansFromSettings,
} from '../pricing/pricing.ts';
import { PlanCard, type Plans } from '../pricing/pricing-page.tsx';
import { useCurrentUser } from '../session/use-session.ts';
import {
  currentPlanName,
  formatDateTime,
  instancesUsage,
  STANDING_BADGE,
  type Standing,
  standingText,
} from '../subscription/standing.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import {
  DOWNGRADE_BLOCKED_TEXT,
  domainsUsed,
  downgradeBlocked,
  INACTIVE_PLAN_TEXT,
  offersAddonInstance,
  STATUS_ERROR_TEXT,
  savingsText,
  usedInstances,
} from './billing.ts';
import { BillingHistory } from './billing-history.tsx';
import { type PaymentIntent, PaymentMethodModal } from './payment-method-modal.tsx';

const BADGE_COLOR: Record<Standing, 'info' | 'success' | 'error'> = {
  trial: 'info',
  active: 'success',
  inactive: 'error',
};

const CYCLE_WORD: Record<BillingCycle, string> = { monthly: 'billed monthly', yearly: 'billed yearly' };

/** Plan label, badge, standing text, next billing date and the pay button (spec customer-area §4). */
function CurrentPlanCard({
  subscription,
  standing,
  onPay,
}: {
  subscription: Subscription;
  standing: Standing;
  onPay: (intent: PaymentIntent) => void;
}) {
  return (
    <Card component="section" aria-label="Current plan" sx={{ height: '100%' }}>
      <CardContent sx={{ p: 3 }}>
        <Typography variant="overline" color="text.secondary">
          Current Plan
        </Typography>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', mb: 0.5, flexWrap: 'wrap' }}>
          <Typography variant="h5" component="h2">
            {currentPlanName(subscription, standing)}
          </Typography>
          <Chip label={STANDING_BADGE[standing]} color={BADGE_COLOR[standing]} size="small" />
          {subscription.cancelAtPeriodEnd && (
            <Chip label="Cancels at period end" color="warning" size="small" />
          )}
        </Stack>
        <Typography color={standing === 'inactive' ? 'error' : 'text.secondary'}>
          {standingText(subscription, standing)}
        </Typography>
        {standing === 'inactive' && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {INACTIVE_PLAN_TEXT}
          </Alert>
        )}
        {standing === 'active' && subscription.nextBillingDate && (
          <Typography color="text.secondary" sx={{ mt: 1 }}>
            Next billing date: {formatDateTime(new Date(subscription.nextBillingDate))}
            {subscription.billingCycle === 'monthly' || subscription.billingCycle === 'yearly'
              ? ` (${CYCLE_WORD[subscription.billingCycle]})`
              : ''}
          </Typography>
        )}
        {standing === 'trial' && (
          <Button
            variant="contained"
            sx={{ mt: 2.5 }}
            onClick={() => onPay({ title: 'Subscribe to a plan' })}
          >
            Subscribe Now
          </Button>
        )}
        {standing === 'inactive' && (
          <Button
            variant="contained"
            color="error"
            sx={{ mt: 2.5 }}
            onClick={() => onPay({ title: 'Renew your subscription' })}
          >
            Renew Subscription
          </Button>
        )}
      </CardContent>
    </Card>
  );
}

/** Instances used, domains used (instances with a custom domain) and API requests used (always 0). */
function UsageCard({ subscription, standing }: { subscription: Subscription; standing: Standing }) {
  const instances = useInstancesQuery({ page: 1, limit: FILTER_PAGE_SIZE, search: '' });
  const domains = instances.data ? String(domainsUsed(instances.data.instances)) : '…';
  return (
    <Card component="section" aria-labelledby="usage-title" sx={{ height: '100%' }}>
      <CardContent sx={{ p: 3 }}>
        <Typography id="usage-title" variant="overline" color="text.secondary" component="h2">
          Usage
        </Typography>
        <Stack component="dl" direction="row" spacing={5} sx={{ m: 0, mt: 1, flexWrap: 'wrap', rowGap: 2 }}>
          <Fact
            label="Instances used"
            value={instancesUsage(standing, usedInstances(subscription), subscription.maxInstances)}
          />
          <Fact label="Domains used" value={domains} />
          <Fact label="API requests used" value="0" />
        </Stack>
      </CardContent>
    </Card>
  );
}

/** What a plan card's button does for this subscription. */
function PlanAction({
  offer,
  subscription,
  standing,
  cycle,
  onPay,
  onBlocked,
}: {
  offer: PlanOffer;
  subscription: Subscription;
  standing: Standing;
  cycle: BillingCycle;
  onPay: (intent: PaymentIntent) => void;
  onBlocked: () => void;
}) {
  const active = standing === 'active';
  if (active && subscription.plan === offer.id)
    return (
      <Button variant="outlined" size="large" fullWidth disabled>
        Current Plan
      </Button>
    );
  const downgrade = active && subscription.plan === 'pro' && offer.id === 'starter';
  const label = downgrade ? 'Downgrade to Starter' : `Choose ${offer.name}`;
  const onClick = () => {
    if (downgrade && downgradeBlocked(usedInstances(subscription))) onBlocked();
    else onPay({ title: `${offer.name}, ${CYCLE_WORD[cycle]}` });
  };
  return (
    <Button
      variant={offer.id === 'pro' && !downgrade ? 'contained' : 'outlined'}
      size="large"
      fullWidth
      onClick={onClick}
    >
      {label}
    </Button>
  );
}

function AddInstanceCard({ plans, onPay }: { plans: Plans; onPay: (intent: PaymentIntent) => void }) {
  const price = formatMoney(plans.addonInstance, plans.currencySymbol);
  return (
    <Card component="section" aria-labelledby="add-instance-title">
      <CardContent sx={{ p: 3 }}>
        <Typography id="add-instance-title" variant="h6" component="h2">
          Add Instance
        </Typography>
        <Typography color="text.secondary" sx={{ my: 1 }}>
          One more instance on your Starter plan for {price}/month.
        </Typography>
        <Button variant="contained" onClick={() => onPay({ title: `Additional instance, ${price}/month` })}>
          Add Instance
        </Button>
      </CardContent>
    </Card>
  );
}

/**
 * The Subscription and Billing page (spec customer-area §2.13): current plan, usage, plans with a
 * monthly/yearly toggle, the Additional Instance offer, billing history and the payment method modal.
 * No payment provider exists yet, so every pay button ends in the modal's empty state.
 */
export function BillingPage() {
  const user = useCurrentUser();
  const { subscription, standing, status } = useCurrentSubscription();
  const settings = usePaymentSettingsQuery();
  const toast = useToast();
  const [cycle, setCycle] = useState<BillingCycle>('monthly');
  const [intent, setIntent] = useState<PaymentIntent | null>(null);
  const [blocked, setBlocked] = useState(false);
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
          <CurrentPlanCard subscription={subscription} standing={standing} onPay={setIntent} />
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
        <Box component="section" aria-label="Plans" sx={{ mb: 4 }}>
          <Stack spacing={1} sx={{ alignItems: 'center', mb: 3 }}>
            <ToggleButtonGroup
              exclusive
              value={cycle}
              onChange={(_event, value: BillingCycle | null) => value && setCycle(value)}
              aria-label="Billing cycle"
              color="primary"
            >
              <ToggleButton value="monthly" sx={{ px: 3 }}>
                Monthly
              </ToggleButton>
              <ToggleButton value="yearly" sx={{ px: 3 }}>
                Yearly
              </ToggleButton>
            </ToggleButtonGroup>
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
              <AddInstanceCard plans={plans} onPay={setIntent} />
            </Box>
          )}
        </Box>
      )}

      <BillingHistory />

      <PaymentMethodModal intent={intent} methods={settings.data?.methods} onClose={() => setIntent(null)} />
    </Container>
  );
}
