import BoltIcon from '@mui/icons-material/Bolt';
import { Box, Button, Container, Grid, Stack, Typography } from '@mui/material';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useOpenedOnce } from '../../components/use-opened-once.ts';
import { useCurrentUser } from '../session/use-session.ts';
import { useCurrentSubscription } from '../subscription/use-current-subscription.ts';
import { CurrentInstancePanel } from './current-instance-panel.tsx';
import { QuickActions } from './quick-actions.tsx';
import { SubscriptionCard } from './subscription-card.tsx';
import { useNow } from './use-now.ts';

// The deploy form (fields, validation, the dialog) loads when a pointer or focus reaches a deploy
// button, so the dashboard's first load carries none of it.
const loadDeployModal = () => import('./deploy-modal.tsx');
const DeployModal = lazy(async () => ({ default: (await loadDeployModal()).DeployModal }));
const preloadDeployModal = () => void loadDeployModal();
/** Props that start loading the deploy form when a user is about to open it. */
const PRELOAD_DEPLOY = { onPointerEnter: preloadDeployModal, onFocus: preloadDeployModal };

/** Live countdowns refresh at least every 30 s (brief); 15 s keeps the minutes honest. */
const CLOCK_TICK_MS = 15_000;

/**
 * Dashboard: the subscription card, the Current Instance panel with the
 * connection details of a database, Quick Actions and the quick deploy modal.
 */
export function DashboardPage() {
  const user = useCurrentUser();
  const toast = useToast();
  const now = useNow(CLOCK_TICK_MS);
  const { subscription, status, inactive } = useCurrentSubscription(now);
  const [deploying, setDeploying] = useState(false);
  const deployUsed = useOpenedOnce(deploying);

  const failed = status.isError;
  useEffect(() => {
    if (failed) toast.error('Failed to load subscription status');
  }, [failed, toast]);

  const name = user.firstName || user.username;

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <Stack
        direction={{ xs: 'column', sm: 'row' }}
        sx={{ justifyContent: 'space-between', alignItems: { sm: 'center' }, gap: 2, mb: 4 }}
      >
        <Box>
          <Typography variant="h4" component="h1">
            Dashboard
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Welcome back, {name}!
          </Typography>
        </Box>
        <Button
          variant="contained"
          startIcon={<BoltIcon />}
          onClick={() => setDeploying(true)}
          {...PRELOAD_DEPLOY}
        >
          Quick Deploy
        </Button>
      </Stack>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 5 }}>
          <SubscriptionCard subscription={subscription} now={now} />
        </Grid>
        <Grid size={{ xs: 12, md: 7 }}>
          <CurrentInstancePanel
            inactive={inactive}
            onDeploy={() => setDeploying(true)}
            deployButtonProps={PRELOAD_DEPLOY}
          />
        </Grid>
        <Grid size={12}>
          <QuickActions />
        </Grid>
      </Grid>
      {deployUsed && (
        <Suspense fallback={null}>
          <DeployModal open={deploying} onClose={() => setDeploying(false)} />
        </Suspense>
      )}
    </Container>
  );
}
