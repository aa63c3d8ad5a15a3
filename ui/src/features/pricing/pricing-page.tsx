import type { Schemas, User } from '@berth/openapi';
import CheckIcon from '@mui/icons-material/Check';
import {
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Container,
  Grid,
  List,
  ListItem,
  ListItemIcon,
  ListItemText,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { type ReactNode, useDeferredValue, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { usePublicConfigQuery } from '../../api/config.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { standingOf } from '../subscription/standing.ts';
import {
  type BillingCycle,
  bestYearlyDiscount,
  formatMoney,
  PLAN_OFFERS,
  type PlanOffer,
  shownPrice,
} from './pricing.ts';

export type Plans = Schemas['PublicConfig']['plans'];

/** One plan with its price for `cycle` and its features; `action` replaces Get Started for users. */
export function PlanCard({
  offer,
  plans,
  cycle,
  user,
  action,
}: {
  offer: PlanOffer;
  plans: Plans;
  cycle: BillingCycle;
  user: User | null;
  action?: ReactNode;
}) {
  const apiAccess = usePublicConfigQuery().data?.offer.publicApi.available ?? false;
  const price = shownPrice(plans[offer.id], cycle);
  const money = (amount: number) => formatMoney(amount, plans.currencySymbol);
  const highlighted = offer.id === 'pro';
  const current =
    user !== null &&
    user.subscription.plan === offer.id &&
    standingOf(user.subscription, new Date()) === 'active';
  const titleId = `plan-${offer.id}-title`;

  return (
    <Card
      component="section"
      aria-labelledby={titleId}
      sx={{
        height: '100%',
        borderColor: highlighted ? 'primary.main' : undefined,
        borderWidth: highlighted ? 2 : 1,
      }}
    >
      <CardContent sx={{ p: { xs: 3, md: 4 }, display: 'flex', flexDirection: 'column', height: '100%' }}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center', mb: 1 }}>
          <Typography id={titleId} variant="h5" component="h2">
            {offer.name}
          </Typography>
          {highlighted && <Chip label="Most popular" color="primary" size="small" />}
          {current && <Chip label="Current plan" color="success" size="small" />}
        </Stack>
        <Typography color="text.secondary" sx={{ mb: 3 }}>
          {offer.tagline}
        </Typography>
        <Box sx={{ mb: 3 }}>
          <Typography component="p" sx={{ display: 'flex', alignItems: 'baseline', gap: 0.75 }}>
            <Box component="span" sx={{ fontSize: '2.75rem', fontWeight: 700, lineHeight: 1 }}>
              {money(price.perMonth)}
            </Box>
            <Box component="span" sx={{ color: 'text.secondary' }}>
              /month
            </Box>
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1, minHeight: '1.5em' }}>
            {price.billedYearly === null
              ? 'Billed monthly'
              : `Billed yearly: ${money(price.billedYearly)} — save ${price.discountPercent}%`}
          </Typography>
        </Box>
        <List dense disablePadding aria-label={`${offer.name} includes`} sx={{ mb: 3, flexGrow: 1 }}>
          {offer.features(money(plans.addonInstance), apiAccess).map((feature) => (
            <ListItem key={feature} disableGutters>
              <ListItemIcon sx={{ minWidth: 32 }}>
                <CheckIcon color="success" fontSize="small" />
              </ListItemIcon>
              <ListItemText primary={feature} />
            </ListItem>
          ))}
        </List>
        {user === null && (
          <Button
            component={RouterLink}
            to="/register"
            variant={highlighted ? 'contained' : 'outlined'}
            size="large"
            fullWidth
            aria-label={`Get Started with ${offer.name}`}
          >
            Get Started
          </Button>
        )}
        {user !== null && action}
      </CardContent>
    </Card>
  );
}

/**
 * The plans and prices for visitors:
 * a monthly/yearly toggle; prices come from the server's plan configuration (GET /api/config).
 */
/** Monthly / Yearly, shared by the pricing and billing pages. */
export function CycleToggle({
  cycle,
  onChange,
  yearlyLabel = 'Yearly',
}: {
  cycle: BillingCycle;
  onChange: (cycle: BillingCycle) => void;
  yearlyLabel?: string;
}) {
  return (
    <ToggleButtonGroup
      exclusive
      value={cycle}
      onChange={(_event, value: BillingCycle | null) => value && onChange(value)}
      aria-label="Billing cycle"
      color="primary"
    >
      <ToggleButton value="monthly" sx={{ px: 3 }}>
        Monthly
      </ToggleButton>
      <ToggleButton value="yearly" sx={{ px: 3 }}>
        {yearlyLabel}
      </ToggleButton>
    </ToggleButtonGroup>
  );
}

export function PricingPage() {
  // The prices' arrival shows the plans: their first render (cards, lists, chips, toggle, each with new
  // styles) is the heaviest work of the page. As a deferred value it renders in a transition, which
  // React cuts into short tasks; "Loading prices..." stays until the plans are ready to show.
  const config = useDeferredValue(usePublicConfigQuery());
  const [cycle, setCycle] = useState<BillingCycle>('monthly');
  const plans = config.data?.plans;

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 5, md: 8 } }}>
      <Box sx={{ textAlign: 'center', mb: 5 }}>
        <Typography variant="h3" component="h1" sx={{ mb: 1.5 }}>
          Pricing
        </Typography>
        <Typography color="text.secondary" variant="h6" component="p" sx={{ fontWeight: 400 }}>
          Start with a free 1-hour trial, then choose the plan that fits. No credit card required.
        </Typography>
      </Box>

      {/* The plans' room is kept while the prices load, so the page does not jump when they show. */}
      <Box sx={{ minHeight: plans ? undefined : { xs: 1260, md: 720 } }}>
        <LoadState
          query={config}
          loading="Loading prices..."
          failed="We could not load the prices. Please try again."
          sx={{ maxWidth: 560, mx: 'auto' }}
        />

        {plans && (
          <>
            <Box sx={{ display: 'flex', justifyContent: 'center', mb: 4 }}>
              <CycleToggle
                cycle={cycle}
                onChange={setCycle}
                yearlyLabel={`Yearly · save up to ${bestYearlyDiscount([plans.starter, plans.pro])}%`}
              />
            </Box>
            <Grid container spacing={3} sx={{ justifyContent: 'center' }}>
              {PLAN_OFFERS.map((offer) => (
                <Grid key={offer.id} size={{ xs: 12, md: 5 }}>
                  <PlanCard offer={offer} plans={plans} cycle={cycle} user={null} />
                </Grid>
              ))}
            </Grid>
            <Typography color="text.secondary" sx={{ textAlign: 'center', mt: 4 }}>
              Prices in {plans.currency}. Every account starts with a free 1-hour trial.
            </Typography>
          </>
        )}
      </Box>
    </Container>
  );
}
