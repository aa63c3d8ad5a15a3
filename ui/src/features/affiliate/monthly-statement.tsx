import DownloadIcon from '@mui/icons-material/Download';
import {
  Box,
  Button,
  Card,
  CardContent,
  CircularProgress,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableFooter,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { lazy, Suspense, useState } from 'react';
import { type AffiliateMonthlyStats, useAffiliateStatsQuery } from '../../api/affiliates.queries.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { downloadCsv, toCsv } from './csv.ts';
import { formatMoney, MONTH_NAMES } from './money.ts';

const EarningsChart = lazy(async () => ({ default: (await import('./earnings-chart.tsx')).EarningsChart }));

/** The year selector offers the current year and the 4 before. */
export const yearsOffered = (now = new Date()) => Array.from({ length: 5 }, (_, i) => now.getFullYear() - i);

/** The statement as CSV: one row per month and a total row. */
export function statementCsv(stats: AffiliateMonthlyStats): string {
  return toCsv(
    ['Month', 'Clicks', 'Referrals', 'Active Referrals', `Earnings (${stats.currency})`],
    [
      ...stats.months.map((m) => [
        `${MONTH_NAMES[m.month - 1]} ${stats.year}`,
        m.clicks,
        m.referrals,
        m.activeReferrals,
        m.earnings.toFixed(2),
      ]),
      [
        'Total',
        stats.totals.clicks,
        stats.totals.referrals,
        stats.totals.activeReferrals,
        stats.totals.earnings.toFixed(2),
      ],
    ],
  );
}

/** Monthly statement with a year selector, the earnings chart and a CSV export. */
export function MonthlyStatement() {
  const years = yearsOffered();
  const [year, setYear] = useState(years[0] ?? new Date().getFullYear());
  const stats = useAffiliateStatsQuery(year);
  const toast = useToast();

  const exportCsv = () => {
    if (!stats.data) return;
    try {
      downloadCsv(`affiliate-statement-${year}.csv`, statementCsv(stats.data));
      toast.success('Monthly statement exported successfully!');
    } catch {
      toast.error('Failed to export monthly statement');
    }
  };

  return (
    <Card component="section" aria-labelledby="statement-title">
      <CardContent sx={{ p: 3 }}>
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          spacing={2}
          sx={{ mb: 2, alignItems: { sm: 'center' } }}
        >
          <Typography id="statement-title" variant="h6" component="h2" sx={{ flexGrow: 1 }}>
            Monthly Statement
          </Typography>
          <TextField
            select
            size="small"
            label="Year"
            value={year}
            onChange={(e) => setYear(Number(e.target.value))}
            sx={{ minWidth: 120 }}
          >
            {years.map((y) => (
              <MenuItem key={y} value={y}>
                {y}
              </MenuItem>
            ))}
          </TextField>
          <Button variant="outlined" startIcon={<DownloadIcon />} onClick={exportCsv} disabled={!stats.data}>
            Export CSV
          </Button>
        </Stack>
        <LoadState
          query={stats}
          loading="Loading the statement…"
          failed="The statement could not be loaded."
        />
        {stats.data && (
          <>
            <Suspense
              fallback={
                <Box sx={{ height: 300, display: 'grid', placeItems: 'center' }}>
                  <CircularProgress aria-label="Loading chart" />
                </Box>
              }
            >
              <EarningsChart stats={stats.data} />
            </Suspense>
            <TableContainer sx={{ mt: 2 }}>
              <Table size="small" aria-label={`Monthly statement ${year}`}>
                <TableHead>
                  <TableRow>
                    <TableCell>Month</TableCell>
                    <TableCell align="right">Clicks</TableCell>
                    <TableCell align="right">Referrals</TableCell>
                    <TableCell align="right">Active Referrals</TableCell>
                    <TableCell align="right">Earnings</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {stats.data.months.map((m) => (
                    <TableRow key={m.month}>
                      <TableCell component="th" scope="row">
                        {MONTH_NAMES[m.month - 1]}
                      </TableCell>
                      <TableCell align="right">{m.clicks}</TableCell>
                      <TableCell align="right">{m.referrals}</TableCell>
                      <TableCell align="right">{m.activeReferrals}</TableCell>
                      <TableCell align="right">{formatMoney(m.earnings, stats.data.currency)}</TableCell>
                    </TableRow>
                  ))}
                </TableBody>
                <TableFooter>
                  <TableRow>
                    <TableCell component="th" scope="row">
                      Total
                    </TableCell>
                    <TableCell align="right">{stats.data.totals.clicks}</TableCell>
                    <TableCell align="right">{stats.data.totals.referrals}</TableCell>
                    <TableCell align="right">{stats.data.totals.activeReferrals}</TableCell>
                    <TableCell align="right">
                      {formatMoney(stats.data.totals.earnings, stats.data.currency)}
                    </TableCell>
                  </TableRow>
                </TableFooter>
              </Table>
            </TableContainer>
          </>
        )}
      </CardContent>
    </Card>
  );
}
