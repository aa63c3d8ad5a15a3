import {
  Button,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
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
import { useState } from 'react';
import {
  type AdminAffiliatePayout,
  useAdminAffiliatePayoutsQuery,
  useProcessAffiliatePayoutMutation,
} from '../../api/affiliates.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatMoney } from '../affiliate/money.ts';
import { AdminSection } from './admin-section.tsx';

type Filter = 'pending' | 'completed' | 'failed' | 'all';
const STATUS_COLOR = { completed: 'success', pending: 'warning', failed: 'error' } as const;

/** Where to send the money, as the affiliate entered it. */
function destination(p: AdminAffiliatePayout): string {
  if (p.paymentMethod === 'paypal') return `PayPal: ${p.paypalEmail ?? '—'}`;
  if (p.paymentMethod === 'crypto')
    return `Crypto${p.cryptoWallet?.network ? ` (${p.cryptoWallet.network})` : ''}: ${p.cryptoWallet?.address ?? '—'}`;
  const b = p.bankDetails;
  if (!b) return 'Bank: —';
  if (b.details) return `Bank: ${b.details}`;
  return `Bank: ${[b.accountName, b.bankName, b.accountNumber, b.iban, b.swiftCode].filter(Boolean).join(', ')}`;
}

/** Completing asks for the transaction id; failing for an optional reason. */
function ProcessDialog({
  payout,
  action,
  onClose,
}: {
  payout: AdminAffiliatePayout;
  action: 'complete' | 'fail';
  onClose: () => void;
}) {
  const process = useProcessAffiliatePayoutMutation();
  const toast = useToast();
  const [text, setText] = useState('');
  const complete = action === 'complete';
  const confirm = () =>
    process.mutate(
      complete
        ? { id: payout.id, complete: true, transactionId: text.trim() }
        : { id: payout.id, complete: false, reason: text.trim() },
      {
        onSuccess: () => {
          toast.success(complete ? 'Payout marked as completed' : 'Payout marked as failed');
          onClose();
        },
      },
    );
  return (
    <Dialog
      open
      onClose={process.isPending ? undefined : onClose}
      aria-labelledby="process-payout-title"
      fullWidth
      maxWidth="sm"
    >
      <DialogTitle id="process-payout-title">
        {complete ? 'Complete payout' : 'Mark payout as failed'}
      </DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          {formatMoney(payout.amount, payout.currency)} to {payout.affiliate.username} — {destination(payout)}
          .{' '}
          {complete
            ? 'Send the money first, then record its transaction id here. The affiliate is notified.'
            : 'The amount returns to the affiliate’s balance. The affiliate is notified.'}
        </DialogContentText>
        <TextField
          autoFocus
          fullWidth
          label={complete ? 'Transaction ID' : 'Reason (optional)'}
          value={text}
          onChange={(e) => setText(e.target.value)}
          error={process.isError}
          helperText={
            process.isError ? errorMessage(process.error, 'The payout could not be updated') : undefined
          }
        />
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={process.isPending}>
          Cancel
        </Button>
        <Button
          variant="contained"
          color={complete ? 'primary' : 'error'}
          onClick={confirm}
          disabled={complete && text.trim() === ''}
          loading={process.isPending}
        >
          {complete ? 'Mark Completed' : 'Mark Failed'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

/** Affiliate payout requests for admins: pay them, then mark completed (with the transaction id) or failed. */
export function AffiliatePayouts() {
  const [filter, setFilter] = useState<Filter>('pending');
  const payouts = useAdminAffiliatePayoutsQuery(filter);
  const [open, setOpen] = useState<{ payout: AdminAffiliatePayout; action: 'complete' | 'fail' } | null>(
    null,
  );

  return (
    <AdminSection
      id="affiliate-payouts"
      title="Affiliate payouts"
      text="Payout requests of affiliates, with where to send the money."
      control={
        <TextField
          select
          size="small"
          label="Status"
          value={filter}
          onChange={(e) => setFilter(e.target.value as Filter)}
          sx={{ minWidth: 140 }}
        >
          <MenuItem value="pending">Pending</MenuItem>
          <MenuItem value="completed">Completed</MenuItem>
          <MenuItem value="failed">Failed</MenuItem>
          <MenuItem value="all">All</MenuItem>
        </TextField>
      }
    >
      <LoadState
        query={payouts}
        loading="Loading payout requests…"
        failed="Payout requests could not be loaded."
      />
      {payouts.data && payouts.data.items.length === 0 && (
        <Typography color="text.secondary">No payout requests here.</Typography>
      )}
      {payouts.data && payouts.data.items.length > 0 && (
        <TableContainer>
          <Table size="small" aria-label="Affiliate payout requests">
            <TableHead>
              <TableRow>
                <TableCell>Affiliate</TableCell>
                <TableCell>Amount</TableCell>
                <TableCell>Send to</TableCell>
                <TableCell>Requested</TableCell>
                <TableCell>Status</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {payouts.data.items.map((p) => (
                <TableRow key={p.id}>
                  <TableCell>
                    {p.affiliate.username}
                    <Typography variant="caption" color="text.secondary" component="div">
                      {p.affiliate.email} · {p.affiliate.referralCode}
                    </Typography>
                  </TableCell>
                  <TableCell>{formatMoney(p.amount, p.currency)}</TableCell>
                  <TableCell sx={{ wordBreak: 'break-word', maxWidth: 280 }}>{destination(p)}</TableCell>
                  <TableCell>{new Date(p.requestedAt).toLocaleDateString()}</TableCell>
                  <TableCell>
                    <Chip size="small" label={p.status} color={STATUS_COLOR[p.status]} />
                    {p.transactionId && (
                      <Typography variant="caption" component="div">
                        {p.transactionId}
                      </Typography>
                    )}
                  </TableCell>
                  <TableCell align="right">
                    {p.status === 'pending' && (
                      <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end' }}>
                        <Button
                          size="small"
                          variant="contained"
                          onClick={() => setOpen({ payout: p, action: 'complete' })}
                        >
                          Complete
                        </Button>
                        <Button
                          size="small"
                          color="error"
                          onClick={() => setOpen({ payout: p, action: 'fail' })}
                        >
                          Fail
                        </Button>
                      </Stack>
                    )}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      {open && <ProcessDialog payout={open.payout} action={open.action} onClose={() => setOpen(null)} />}
    </AdminSection>
  );
}
