import { Box, Typography } from '@mui/material';
import { BarChart } from '@mui/x-charts/BarChart';
import type { AffiliateMonthlyStats } from '../../api/affiliates.queries.ts';
import { MONTH_NAMES } from './money.ts';

/**
 * Clicks, sign-ups, first payments and commission per month (loaded on demand: the charts library is its
 * own chunk). The numbers are also in the statement table below it, for screen readers.
 */
export function EarningsChart({ stats }: { stats: AffiliateMonthlyStats }) {
  const months = MONTH_NAMES.map((m) => m.slice(0, 3));
  return (
    <Box aria-label={`Earnings chart ${stats.year}`} role="img" data-testid="earnings-chart">
      <Typography variant="subtitle2" component="h3" sx={{ mb: 1 }}>
        Activity and commission per month
      </Typography>
      <BarChart
        height={280}
        xAxis={[{ scaleType: 'band', data: months }]}
        yAxis={[
          { id: 'count', width: 40 },
          { id: 'money', position: 'right', width: 56 },
        ]}
        series={[
          { label: 'Clicks', data: stats.months.map((m) => m.clicks), yAxisId: 'count' },
          { label: 'Sign-ups', data: stats.months.map((m) => m.referrals), yAxisId: 'count' },
          { label: 'First payments', data: stats.months.map((m) => m.activeReferrals), yAxisId: 'count' },
          {
            label: `Commission (${stats.currency})`,
            data: stats.months.map((m) => m.earnings),
            yAxisId: 'money',
          },
        ]}
      />
    </Box>
  );
}
