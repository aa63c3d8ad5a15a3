import type { Subscription } from '@berth/openapi';
import {
  Alert,
  Button,
  Card,
  CardContent,
  Chip,
  Divider,
  LinearProgress,
  Stack,
  Typography,
} from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { Fact } from '../../components/fact.tsx';
import { useDateTimeFormat } from '../../components/use-date-time-format.ts';
import {
  DATE_TIME_OPTIONS,
  formatRemaining,
  instanceAllowance,
  isTrialEndingSoon,
  planName,
  STANDING_BADGE,
  type Standing,
  standingOf,
  standingText,
  trialRemainingMs,
} from '../subscription/standing.ts';

const BADGE_COLOR: Record<Standing, 'info' | 'success' | 'error'> = {
  trial: 'info',
  active: 'success',
  inactive: 'error',
};

const TRIAL_MS = 60 * 60_000;

/** Where the plan buttons lead: /pricing, which shows the plans to signed-in users. */
const PLANS_PATH = '/pricing';

/**
 * The dashboard's subscription card; `now` drives the live countdown.
 * Upgrade to Pro (Starter, not expired), Renew Subscription (expired) and View All Plans lead to /pricing.
 */
export function SubscriptionCard({ subscription, now }: { subscription: Subscription; now: Date }) {
  const standing = standingOf(subscription, now);
  const remaining = standing === 'trial' ? trialRemainingMs(subscription, now) : null;
  // In the visitor's own locale and time zone, also when the server renders the card.
  const dateTime = useDateTimeFormat(DATE_TIME_OPTIONS);
  const formatDate = (date: Date) => dateTime.format(date);

  return (
    <Card component="section" aria-labelledby="subscription-card-title">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography variant="overline" color="text.secondary">
          Subscription
        </Typography>
        <Stack direction="row" spacing={1.5} sx={{ alignItems: 'center', mb: 0.5 }}>
          <Typography id="subscription-card-title" variant="h5" component="h2">
            {planName(subscription)}
          </Typography>
          <Chip label={STANDING_BADGE[standing]} color={BADGE_COLOR[standing]} size="small" />
        </Stack>
        <Typography color={standing === 'inactive' ? 'error' : 'text.secondary'}>
          {standingText(subscription, standing, formatDate)}
        </Typography>

        <Divider sx={{ my: 2.5 }} />

        <Stack component="dl" direction="row" spacing={5} sx={{ m: 0, flexWrap: 'wrap', rowGap: 2 }}>
          <Fact label="Instance allowance" value={instanceAllowance(subscription.maxInstances)} />
          {remaining !== null && <Fact label="Trial time remaining" value={formatRemaining(remaining)} />}
          {standing === 'active' && subscription.nextBillingDate && (
            <Fact label="Next billing date" value={formatDate(new Date(subscription.nextBillingDate))} />
          )}
        </Stack>

        {remaining !== null && (
          <LinearProgress
            variant="determinate"
            value={Math.min(100, (remaining / TRIAL_MS) * 100)}
            aria-label="Trial time left"
            sx={{ mt: 2.5, height: 6, borderRadius: 3 }}
          />
        )}

        {isTrialEndingSoon(standing, remaining) && (
          <Alert severity="warning" sx={{ mt: 2.5 }}>
            Trial ending soon!
          </Alert>
        )}

        <Stack direction="row" sx={{ mt: 3, gap: 1.5, flexWrap: 'wrap' }}>
          {subscription.plan === 'starter' && standing !== 'inactive' && (
            <Button component={RouterLink} to={PLANS_PATH} variant="contained">
              Upgrade to Pro
            </Button>
          )}
          {standing === 'inactive' && (
            <Button component={RouterLink} to={PLANS_PATH} variant="contained" color="error">
              Renew Subscription
            </Button>
          )}
          <Button component={RouterLink} to={PLANS_PATH} variant="outlined">
            View All Plans
          </Button>
        </Stack>
      </CardContent>
    </Card>
  );
}
