// What the Subscription and Billing page offers: each plan card's button and the Additional Instance.
import type { Subscription } from '@berth/openapi';
import AddIcon from '@mui/icons-material/Add';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutlined';
import { Box, Button, Card, CardContent, Divider, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import { useRemoveAddonInstanceMutation } from '../../api/payments.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { type BillingCycle, formatMoney, type PlanOffer } from '../pricing/pricing.ts';
import type { Plans } from '../pricing/pricing-page.tsx';
import type { Standing } from '../subscription/standing.ts';
import { downgradeBlocked, removeAddonText, usedInstances } from './billing.ts';
import { CYCLE_WORD } from './current-plan.tsx';
import type { PaymentIntent } from './payment-method-modal.tsx';

const planIntent = (offer: PlanOffer, cycle: BillingCycle): PaymentIntent => ({
  title: `${offer.name}, ${CYCLE_WORD[cycle]}`,
  purchase: { plan: offer.id, billingCycle: cycle },
});

/** What a plan card's button does for this subscription. */
export function PlanAction({
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
export function AddInstanceCard({
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
