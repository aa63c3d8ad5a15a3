import { Card, CardContent, Chip, Grid, Typography } from '@mui/material';
import type { AffiliateDashboard } from '../../api/affiliates.queries.ts';
import { formatMoney } from './money.ts';

/** The change badge: month over month in percent (points for the conversion rate); null: new. */
export function changeLabel(change: number | null, unit: '%' | ' pts' = '%'): string {
  if (change === null) return 'New this month';
  const sign = change > 0 ? '+' : '';
  return `${sign}${change.toFixed(1)}${unit} vs last month`;
}

function ChangeBadge({ change, unit }: { change: number | null; unit?: '%' | ' pts' }) {
  const color = change === null || change > 0 ? 'success' : change < 0 ? 'error' : 'default';
  return <Chip size="small" variant="outlined" color={color} label={changeLabel(change, unit)} />;
}

/**
 * The five stat cards: badges compare this month with last month from the server's
 * figures (the spec's random clicks delta is placeholder behaviour, not copied).
 */
export function StatCards({ data }: { data: AffiliateDashboard }) {
  const cards = [
    {
      label: 'Total Earnings',
      value: formatMoney(data.totalEarnings, data.currency),
      change: data.changes.totalEarnings,
    },
    {
      label: 'Pending Payout',
      value: formatMoney(data.pendingEarnings, data.currency),
      change: data.changes.pendingEarnings,
      note: `${formatMoney(data.availableBalance, data.currency)} available, ${formatMoney(data.heldEarnings, data.currency)} in the 30-day hold`,
    },
    {
      label: 'Total Referrals',
      value: String(data.totalReferrals),
      change: data.changes.totalReferrals,
      note: `${data.activeReferrals} paying`,
    },
    { label: 'Clicks', value: String(data.totalClicks), change: data.changes.totalClicks },
    {
      label: 'Conversion Rate',
      value: `${data.conversionRate.toFixed(1)}%`,
      change: data.changes.conversionRate,
      unit: ' pts' as const,
    },
  ];
  return (
    <Grid
      container
      spacing={2}
      component="ul"
      sx={{ listStyle: 'none', p: 0, m: 0 }}
      aria-label="Affiliate figures"
    >
      {cards.map((c) => (
        <Grid key={c.label} size={{ xs: 12, sm: 6, md: 'grow' }} component="li">
          <Card sx={{ height: '100%' }}>
            <CardContent>
              <Typography variant="body2" color="text.secondary" component="h2">
                {c.label}
              </Typography>
              <Typography variant="h5" component="p" sx={{ my: 0.5 }} data-testid={`stat-${c.label}`}>
                {c.value}
              </Typography>
              <ChangeBadge change={c.change} unit={c.unit} />
              {c.note && (
                <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
                  {c.note}
                </Typography>
              )}
            </CardContent>
          </Card>
        </Grid>
      ))}
    </Grid>
  );
}
