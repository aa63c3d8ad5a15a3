import DownloadIcon from '@mui/icons-material/Download';
import PaymentsIcon from '@mui/icons-material/Payments';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  Grid,
  InputAdornment,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import {
  type AffiliatePayout,
  useAffiliatePayoutsQuery,
  useRequestPayoutMutation,
} from '../../api/affiliates.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { downloadCsv, toCsv } from './csv.ts';
import { formatMoney } from './money.ts';

const STATUS_COLOR = { completed: 'success', pending: 'warning', failed: 'error' } as const;
const METHOD = { paypal: 'PayPal', bank: 'Bank transfer', crypto: 'Crypto' } as Record<string, string>;
const day = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : '—');

/** Payout request: the first failing rule's message, else none. */
export function payoutAmountError(amount: number, minimum: number, available: number): string | undefined {
  if (!Number.isFinite(amount) || amount <= 0) return 'Please enter a valid payout amount';
  if (amount < minimum) return `Minimum payout amount is $${minimum}`;
  if (amount > available) return 'Payout amount cannot exceed pending payout balance';
  return undefined;
}

export function payoutsCsv(payouts: readonly AffiliatePayout[]): string {
  return toCsv(
    ['Amount', 'Currency', 'Status', 'Requested', 'Processed', 'Method', 'Transaction ID'],
    payouts.map((p) => [
      p.amount.toFixed(2),
      p.currency,
      p.status,
      p.requestedAt.slice(0, 10),
      p.processedAt?.slice(0, 10) ?? '',
      METHOD[p.method] ?? p.method,
      p.transactionId,
    ]),
  );
}

/** Payouts tab: request form, history with CSV export, 'No Payouts Yet'. */
export function PayoutsTab() {
  const payouts = useAffiliatePayoutsQuery();
  const request = useRequestPayoutMutation();
  const toast = useToast();
  const [amount, setAmount] = useState('');
  const value = Number(amount);

  if (!payouts.data)
    return <LoadState query={payouts} loading="Loading payouts…" failed="Payouts could not be loaded." />;
  const data = payouts.data;

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = payoutAmountError(value, data.minimumPayout, data.availableBalance);
    if (problem) {
      toast.error(problem);
      return;
    }
    request.mutate(value, {
      onSuccess: (result) => {
        toast.success(result.message || 'Payout request submitted successfully!');
        setAmount('');
      },
      onError: (error) => toast.error(errorMessage(error, 'Failed to request payout')),
    });
  };

  const exportCsv = () => {
    try {
      downloadCsv(`affiliate-payouts-${new Date().toISOString().slice(0, 10)}.csv`, payoutsCsv(data.payouts));
      toast.success('Payout history exported successfully!');
    } catch {
      toast.error('Failed to export payout history');
    }
  };

  return (
    <Grid container spacing={3}>
      <Grid size={{ xs: 12, md: 5 }}>
        <Card component="section" aria-labelledby="request-title">
          <CardContent sx={{ p: 3 }}>
            <Typography id="request-title" variant="h6" component="h2" sx={{ mb: 2 }}>
              Request Payout
            </Typography>
            <Stack component="form" noValidate onSubmit={submit} spacing={2}>
              <TextField
                label="Amount"
                type="number"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
                slotProps={{
                  input: { startAdornment: <InputAdornment position="start">$</InputAdornment> },
                  htmlInput: { min: 0, step: '0.01' },
                }}
              />
              <Typography variant="body2" data-testid="available-balance">
                Available balance: <strong>{formatMoney(data.availableBalance, data.currency)}</strong>{' '}
                (pending payout {formatMoney(data.pendingEarnings, data.currency)})
              </Typography>
              <Alert severity="info">
                Minimum payout {formatMoney(data.minimumPayout, data.currency)}. Commissions become available
                30 days after the payment. Payouts are processed within 3-5 business days.
              </Alert>
              <Button
                type="submit"
                variant="contained"
                startIcon={<PaymentsIcon />}
                disabled={!amount || !(value > 0)}
                loading={request.isPending}
              >
                Request Payout
              </Button>
            </Stack>
          </CardContent>
        </Card>
      </Grid>
      <Grid size={{ xs: 12, md: 7 }}>
        <Card component="section" aria-labelledby="history-title">
          <CardContent sx={{ p: 3 }}>
            <Stack direction="row" sx={{ mb: 2, alignItems: 'center' }}>
              <Typography id="history-title" variant="h6" component="h2" sx={{ flexGrow: 1 }}>
                Payout History
              </Typography>
              <Button
                variant="outlined"
                startIcon={<DownloadIcon />}
                onClick={exportCsv}
                disabled={data.payouts.length === 0}
              >
                Export CSV
              </Button>
            </Stack>
            {data.payouts.length === 0 ? (
              <Box sx={{ textAlign: 'center', py: 4 }}>
                <Typography variant="h6" component="p">
                  No Payouts Yet
                </Typography>
                <Typography color="text.secondary">Your payout requests will appear here.</Typography>
              </Box>
            ) : (
              <TableContainer>
                <Table size="small" aria-label="Payout history">
                  <TableHead>
                    <TableRow>
                      <TableCell>Amount</TableCell>
                      <TableCell>Status</TableCell>
                      <TableCell>Requested</TableCell>
                      <TableCell>Processed</TableCell>
                      <TableCell>Method</TableCell>
                      <TableCell>Transaction ID</TableCell>
                    </TableRow>
                  </TableHead>
                  <TableBody>
                    {data.payouts.map((p) => (
                      <TableRow key={p.id}>
                        <TableCell>{formatMoney(p.amount, p.currency)}</TableCell>
                        <TableCell>
                          <Chip size="small" label={p.status} color={STATUS_COLOR[p.status] ?? 'warning'} />
                        </TableCell>
                        <TableCell>{day(p.requestedAt)}</TableCell>
                        <TableCell>{day(p.processedAt)}</TableCell>
                        <TableCell>{METHOD[p.method] ?? p.method}</TableCell>
                        <TableCell sx={{ wordBreak: 'break-all' }}>{p.transactionId ?? '—'}</TableCell>
                      </TableRow>
                    ))}
                  </TableBody>
                </Table>
              </TableContainer>
            )}
          </CardContent>
        </Card>
      </Grid>
    </Grid>
  );
}
