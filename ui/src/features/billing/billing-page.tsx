import type { Subscription } from '@berth/openapi';
import AddIcon from '@mui/icons-material/Add';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import EventBusyIcon from '@mui/icons-material/EventBusy';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutlined';
import ReplayIcon from '@mui/icons-material/Replay';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Container,
  Divider,
  Grid,
  Stack,
  Typography,
} from '@mui/material';
import { type RefObject, useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import { FILTER_PAGE_SIZE, useInstancesQuery } from '../../api/instances.queries.ts';
import {
  useCancelAtPeriodEndMutation,
  usePaymentSettingsQuery,
  useRemoveAddonInstanceMutation,
  useStripePortalMutation,
} from '../../api/payments.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Fact } from '../../components/fact.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import {
  type BillingCycle,
  formatMoney,
  PLAN_OFFERS,
  type PlanOffer,
  plansFromSettings,
} from '../pricing/pricing.ts';
import { CycleToggle, PlanCard, type Plans } from '../pricing/pricing-page.tsx';
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
  cancelSubscriptionText,
  DOWNGRADE_BLOCKED_TEXT,
  domainsUsed,
  downgradeBlocked,
  INACTIVE_PLAN_TEXT,
  offersAddonInstance,
  removeAddonText,
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

const LONG_DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

/** The end of the paid period as a date, or null when the subscription does not say. */
const periodEnd = (sub: Pick<Subscription, 'nextBillingDate'>) =>
  sub.nextBillingDate ? LONG_DATE.format(new Date(sub.nextBillingDate)) : null;

/** Cancel at period end (with a confirmation), resume (Stripe only) and the Stripe portal. */
function SubscriptionActions({ subscription }: { subscription: Subscription }) {
  const platform = usePlatform();
  const toast = useToast();
  const cancelRenewal = useCancelAtPeriodEndMutation();
  const portal = useStripePortalMutation();
  const [confirming, setConfirming] = useState(false);
  const stripe = subscription.provider === 'stripe';
  const endsOn = periodEnd(subscription);

  const cancel = () =>
    cancelRenewal.mutate(true, {
      onSuccess: () => {
        setConfirming(false);
        toast.success(endsOn ? `Your subscription ends on ${endsOn}` : 'Your subscription will not renew');
      },
    });
  const resume = () =>
    cancelRenewal.mutate(false, {
      onSuccess: () => toast.success('Your subscription will renew'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to resume the subscription')),
    });
  const manage = () =>
    portal.mutate(undefined, {
      onSuccess: ({ url }) => platform.openPaymentPage(url),
      onError: (error) => toast.error(errorMessage(error, 'Failed to open the payment details')),
    });

  return (
    <>
      <Stack direction="row" spacing={1.5} useFlexGap sx={{ mt: 2.5, flexWrap: 'wrap' }}>
        {!subscription.cancelAtPeriodEnd && (
          <Button
            variant="outlined"
            color="error"
            startIcon={<EventBusyIcon />}
            onClick={() => {
              cancelRenewal.reset();
              setConfirming(true);
            }}
          >
            Cancel subscription
          </Button>
        )}
        {subscription.cancelAtPeriodEnd && stripe && (
          <Button
            variant="contained"
            startIcon={<ReplayIcon />}
            loading={cancelRenewal.isPending && cancelRenewal.variables === false}
            onClick={resume}
          >
            Resume subscription
          </Button>
        )}
        {stripe && (
          <Button
            variant="outlined"
            startIcon={<CreditCardIcon />}
            loading={portal.isPending}
            onClick={manage}
          >
            Manage payment details
          </Button>
        )}
      </Stack>
      <ConfirmDialog
        open={confirming}
        title="Cancel subscription?"
        text={cancelSubscriptionText(endsOn)}
        confirmLabel="Cancel subscription"
        cancelLabel="Keep subscription"
        destructive
        pending={cancelRenewal.isPending}
        error={
          cancelRenewal.isError && cancelRenewal.variables === true
            ? errorMessage(cancelRenewal.error, 'Failed to cancel the subscription')
            : null
        }
        onConfirm={cancel}
        onClose={() => setConfirming(false)}
      />
    </>
  );
}

/** Plan label, badge, standing text, next billing date and the plan's actions. */
function CurrentPlanCard({
  subscription,
  standing,
  onChoosePlan,
}: {
  subscription: Subscription;
  standing: Standing;
  onChoosePlan: () => void;
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
            {subscription.cancelAtPeriodEnd ? 'Access ends: ' : 'Next billing date: '}
            {formatDateTime(new Date(subscription.nextBillingDate))}
            {!subscription.cancelAtPeriodEnd &&
            (subscription.billingCycle === 'monthly' || subscription.billingCycle === 'yearly')
              ? ` (${CYCLE_WORD[subscription.billingCycle]})`
              : ''}
          </Typography>
        )}
        {standing === 'active' && <SubscriptionActions subscription={subscription} />}
        {standing === 'trial' && (
          <Button variant="contained" sx={{ mt: 2.5 }} onClick={onChoosePlan}>
            Subscribe Now
          </Button>
        )}
        {standing === 'inactive' && (
          <Button variant="contained" color="error" sx={{ mt: 2.5 }} onClick={onChoosePlan}>
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

const planIntent = (offer: PlanOffer, cycle: BillingCycle): PaymentIntent => ({
  title: `${offer.name}, ${CYCLE_WORD[cycle]}`,
  purchase: { plan: offer.id, billingCycle: cycle },
});

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
  if (active && subscription.plan === offer.id) {
    const current = subscription.billingCycle;
    if (current === null || current === cycle)
      return (
        <Button variant="outlined" size="large" fullWidth disabled>
          Current Plan
        </Button>
      );
    return (
      <Button variant="outlined" size="large" fullWidth onClick={() => onPay(planIntent(offer, cycle))}>
        {`Switch to ${cycle} billing`}
      </Button>
    );
  }
  const downgrade = active && subscription.plan === 'pro' && offer.id === 'starter';
  const label = downgrade ? 'Downgrade to Starter' : `Choose ${offer.name}`;
  const onClick = () => {
    if (downgrade && downgradeBlocked(usedInstances(subscription))) onBlocked();
    else onPay(planIntent(offer, cycle));
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

/** One more instance on an active Starter plan; with add-ons, their removal. */
function AddInstanceCard({
  plans,
  subscription,
  onPay,
}: {
  plans: Plans;
  subscription: Subscription;
  onPay: (intent: PaymentIntent) => void;
}) {
  const toast = useToast();
  const remove = useRemoveAddonInstanceMutation();
  const [confirming, setConfirming] = useState(false);
  const price = formatMoney(plans.addonInstance, plans.currencySymbol);
  const hasAddon = subscription.maxInstances > 1;
  const extra = Math.max(subscription.addonInstances, subscription.maxInstances - 1);

  const confirmRemoval = () =>
    remove.mutate(undefined, {
      onSuccess: () => {
        setConfirming(false);
        toast.success('Additional instance removed');
      },
    });

  return (
    <Card component="section" aria-labelledby="add-instance-title">
      <CardContent sx={{ p: 3 }}>
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={2}
          sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}
        >
          <Box>
            <Typography id="add-instance-title" variant="h6" component="h2">
              Add Instance
            </Typography>
            <Typography color="text.secondary" sx={{ mt: 0.5 }}>
              One more instance on your Starter plan for {price}/month.
            </Typography>
          </Box>
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            sx={{ flexShrink: 0 }}
            onClick={() =>
              onPay({
                title: `Additional instance, ${price}/month`,
                purchase: { purchaseType: 'addon_instance' },
              })
            }
          >
            Add Instance
          </Button>
        </Stack>
        {hasAddon && (
          <>
            <Divider sx={{ my: 2.5 }} />
            <Stack
              direction={{ xs: 'column', sm: 'row' }}
              spacing={2}
              sx={{ alignItems: { sm: 'center' }, justifyContent: 'space-between' }}
            >
              <Typography color="text.secondary">
                {extra === 1
                  ? 'Your plan includes 1 additional instance.'
                  : `Your plan includes ${extra} additional instances.`}
              </Typography>
              <Button
                variant="outlined"
                color="error"
                startIcon={<RemoveCircleOutlineIcon />}
                sx={{ flexShrink: 0 }}
                onClick={() => {
                  remove.reset();
                  setConfirming(true);
                }}
              >
                Remove additional instance
              </Button>
            </Stack>
            <ConfirmDialog
              open={confirming}
              title="Remove the additional instance?"
              text={removeAddonText(formatMoney(plans.starter.monthly, plans.currencySymbol))}
              confirmLabel="Remove"
              cancelLabel="Keep it"
              destructive
              pending={remove.isPending}
              error={
                remove.isError ? errorMessage(remove.error, 'Failed to remove the additional instance') : null
              }
              onConfirm={confirmRemoval}
              onClose={() => setConfirming(false)}
            />
          </>
        )}
      </CardContent>
    </Card>
  );
}

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
