// The current plan on the Subscription and Billing page: its card with the plan's actions, and the usage.
import type { Subscription } from '@berth/openapi';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import EventBusyIcon from '@mui/icons-material/EventBusy';
import ReplayIcon from '@mui/icons-material/Replay';
import { Alert, Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import { FILTER_PAGE_SIZE, useInstancesQuery } from '../../api/instances.queries.ts';
import { useCancelAtPeriodEndMutation, useStripePortalMutation } from '../../api/payments.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { Fact } from '../../components/fact.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import type { BillingCycle } from '../pricing/pricing.ts';
import {
  currentPlanName,
  formatDateTime,
  instancesUsage,
  STANDING_BADGE,
  type Standing,
  standingText,
} from '../subscription/standing.ts';
import { cancelSubscriptionText, domainsUsed, INACTIVE_PLAN_TEXT, usedInstances } from './billing.ts';

const BADGE_COLOR: Record<Standing, 'info' | 'success' | 'error'> = {
  trial: 'info',
  active: 'success',
  inactive: 'error',
};

export const CYCLE_WORD: Record<BillingCycle, string> = {
  monthly: 'billed monthly',
  yearly: 'billed yearly',
};

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
export function CurrentPlanCard({
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
export function UsageCard({ subscription, standing }: { subscription: Subscription; standing: Standing }) {
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
