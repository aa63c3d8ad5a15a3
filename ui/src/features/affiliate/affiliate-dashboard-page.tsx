import { Box, Button, Container, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Navigate, Link as RouterLink } from 'react-router';
import { useAffiliateDashboardQuery } from '../../api/affiliates.queries.ts';
import { ApiRequestError } from '../../api/api-error.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { MonthlyStatement } from './monthly-statement.tsx';
import { PayoutsTab } from './payouts-tab.tsx';
import { ReferralLinks } from './referral-links.tsx';
import { StatCards } from './stat-cards.tsx';

const statusOf = (error: unknown) => (error instanceof ApiRequestError ? error.status : undefined);

/**
 * Affiliate dashboard: loading, then Overview (stat cards, monthly statement with the
 * chart, referral links) and Payouts. A 404 sends the user to apply, a 401 to the affiliate login.
 */
export function AffiliateDashboardPage() {
  const dashboard = useAffiliateDashboardQuery();
  const toast = useToast();
  const [tab, setTab] = useState<'overview' | 'payouts'>('overview');
  const status = statusOf(dashboard.error);

  useEffect(() => {
    if (dashboard.isError && status !== 404 && status !== 401)
      toast.error(
        `Failed to load affiliate data: ${dashboard.error instanceof Error ? dashboard.error.message : 'unknown error'}`,
      );
  }, [dashboard.isError, dashboard.error, status, toast]);

  if (status === 404) return <Navigate to="/affiliate/apply" replace />;
  if (status === 401) return <Navigate to="/affiliate/login" replace />;

  return (
    <Container maxWidth="lg" sx={{ py: { xs: 4, md: 6 } }}>
      <Stack direction="row" sx={{ mb: 3, alignItems: 'center', flexWrap: 'wrap', gap: 2 }}>
        <Typography variant="h4" component="h1" sx={{ flexGrow: 1 }}>
          Affiliate Dashboard
        </Typography>
        <Button component={RouterLink} to="/affiliate/settings" variant="outlined">
          Settings
        </Button>
      </Stack>
      {!dashboard.data ? (
        <LoadState
          query={dashboard}
          loading="Loading affiliate data…"
          failed="Affiliate data could not be loaded."
        />
      ) : (
        <>
          <Tabs
            value={tab}
            onChange={(_, next) => setTab(next)}
            aria-label="Affiliate dashboard"
            sx={{ mb: 3 }}
          >
            <Tab label="Overview" value="overview" id="tab-overview" aria-controls="panel-overview" />
            <Tab label="Payouts" value="payouts" id="tab-payouts" aria-controls="panel-payouts" />
          </Tabs>
          <Box role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
            {tab === 'overview' ? (
              <Stack spacing={3}>
                <StatCards data={dashboard.data} />
                <MonthlyStatement />
                <ReferralLinks data={dashboard.data} />
              </Stack>
            ) : (
              <PayoutsTab />
            )}
          </Box>
        </>
      )}
    </Container>
  );
}
