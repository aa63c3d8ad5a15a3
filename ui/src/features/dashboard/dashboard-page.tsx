import { Box, Container, Grid, Typography } from '@mui/material';
import { useEffect } from 'react';
import { useSubscriptionStatusQuery } from '../../api/subscriptions.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useCurrentUser } from '../session/use-session.ts';
import { useRefreshAtTrialEnd } from '../subscription/use-refresh-at-trial-end.ts';
import { SubscriptionCard } from './subscription-card.tsx';
import { useNow } from './use-now.ts';

/** Live countdowns refresh at least every 30 s (brief); 15 s keeps the minutes honest. */
const CLOCK_TICK_MS = 15_000;

/** Dashboard, first version (spec customer-area §2.8): welcome and the subscription card. */
export function DashboardPage() {
  const user = useCurrentUser();
  const toast = useToast();
  const now = useNow(CLOCK_TICK_MS);
  const status = useSubscriptionStatusQuery();
  const subscription = status.data?.subscription ?? user.subscription;
  useRefreshAtTrialEnd(subscription.trialEndsAt);

  const failed = status.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load subscription status');
  }, [failed, toast]);

  const name = user.firstName || user.username;

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <Box sx={{ mb: 4 }}>
        <Typography variant="h4" component="h1">
          Dashboard
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          Welcome back, {name}!
        </Typography>
      </Box>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 8, lg: 6 }}>
          <SubscriptionCard subscription={subscription} now={now} />
        </Grid>
      </Grid>
    </Container>
  );
}
