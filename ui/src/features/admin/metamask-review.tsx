import {
  Alert,
  MenuItem,
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
  type AdminMetaMaskOrder,
  useAdminMetaMaskOrdersQuery,
  useMetaMaskReviewMutation,
} from '../../api/admin.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import {
  formatAmount,
  ORDER_STATUS_FILTERS,
  type OrderStatusFilter,
  orderPurchase,
  VERIFICATION_LABEL,
  ZERO_VALUE_NOTICE,
} from './admin.ts';
import { AdminSection } from './admin-section.tsx';
import { MetaMaskOrderRow } from './metamask-order-row.tsx';

type Pending = { action: 'approve' | 'reject'; order: AdminMetaMaskOrder; open: boolean };

/** Which payments the table shows, by status. */
function OrderStatusSelect({
  value,
  onChange,
}: {
  value: OrderStatusFilter;
  onChange: (value: OrderStatusFilter) => void;
}) {
  return (
    <TextField
      select
      size="small"
      label="Status"
      value={value}
      onChange={(event) => onChange(event.target.value as OrderStatusFilter)}
      sx={{ width: { xs: '100%', sm: 240 }, flexShrink: 0 }}
    >
      {ORDER_STATUS_FILTERS.map((option) => (
        <MenuItem key={option.value} value={option.value}>
          {option.label}
        </MenuItem>
      ))}
    </TextField>
  );
}

/** MetaMask payments to review: the transaction, what the on-chain check found, Verify/Approve/Reject. */
export function MetaMaskReview() {
  const toast = useToast();
  const [status, setStatus] = useState<OrderStatusFilter>('all');
  const query = useAdminMetaMaskOrdersQuery(status === 'all' ? '' : status);
  const review = useMetaMaskReviewMutation();
  const [confirming, setConfirming] = useState<Pending | null>(null);

  const onChainChecks = query.data?.onChainChecks ?? false;
  const orders = query.data?.orders ?? [];

  const verify = (order: AdminMetaMaskOrder) =>
    review.mutate(
      { action: 'verify', id: order.id },
      {
        onSuccess: (checked) =>
          toast.success(`Transaction checked: ${VERIFICATION_LABEL[checked.verificationState]}`),
        onError: (error) => toast.error(errorMessage(error, 'Failed to check the transaction')),
      },
    );

  const confirm = (reason: string) => {
    if (!confirming?.open) return;
    const { action, order } = confirming;
    review.mutate(
      action === 'approve'
        ? { action, id: order.id }
        : { action, id: order.id, ...(reason ? { reason } : {}) },
      {
        onSuccess: () => {
          close();
          toast.success(action === 'approve' ? 'Payment approved' : 'Payment rejected');
        },
      },
    );
  };

  // The dialog keeps its order while it fades out.
  const close = () => setConfirming((current) => current && { ...current, open: false });

  const busy = (order: AdminMetaMaskOrder, action: 'verify' | 'approve' | 'reject') =>
    review.isPending && review.variables?.id === order.id && review.variables.action === action;

  return (
    <AdminSection
      id="admin-metamask"
      title="MetaMask payments to review"
      text="Newest first. Approving activates the plan at once and records an invoice."
      control={<OrderStatusSelect value={status} onChange={setStatus} />}
    >
      <Alert severity="warning" sx={{ mb: 2 }}>
        {ZERO_VALUE_NOTICE}
      </Alert>
      {query.isSuccess && !onChainChecks && (
        <Alert severity="info" variant="outlined" sx={{ mb: 2 }}>
          On-chain checks are off: set ETH_RPC_URL on the server to check transactions automatically.
        </Alert>
      )}
      {!query.isSuccess ? (
        <LoadState
          query={query}
          loading="Loading MetaMask payments..."
          failed={errorMessage(query.error, 'Failed to load the MetaMask payments')}
        />
      ) : orders.length === 0 ? (
        <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
          No MetaMask payments to review.
        </Typography>
      ) : (
        <TableContainer sx={{ border: 1, borderColor: 'divider', borderRadius: 1 }}>
          <Table size="small" aria-labelledby="admin-metamask-title">
            <TableHead>
              <TableRow>
                <TableCell>User</TableCell>
                <TableCell>Plan</TableCell>
                <TableCell align="right">Amount</TableCell>
                <TableCell>Transaction</TableCell>
                <TableCell>On-chain check</TableCell>
                <TableCell>Status</TableCell>
                <TableCell align="right">Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {orders.map((order) => (
                <MetaMaskOrderRow
                  key={order.id}
                  order={order}
                  onChainChecks={onChainChecks}
                  pending={review.isPending}
                  busy={(action) => busy(order, action)}
                  onVerify={() => verify(order)}
                  onReview={(action) => {
                    review.reset();
                    setConfirming({ action, order, open: true });
                  }}
                />
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <ConfirmDialog
        open={confirming?.action === 'approve' && confirming.open}
        title="Approve this payment?"
        text={
          confirming
            ? `${confirming.order.user.username} gets ${orderPurchase(confirming.order)} at once, and an invoice of ${formatAmount(confirming.order.amount, confirming.order.currency)} is recorded.`
            : ''
        }
        confirmLabel="Approve payment"
        pending={review.isPending}
        error={review.isError ? errorMessage(review.error, 'Failed to approve the payment') : null}
        onConfirm={confirm}
        onClose={close}
      >
        <Alert severity="warning" sx={{ mt: 2 }}>
          The transaction carries no value: approve only once you know the payment arrived.
        </Alert>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming?.action === 'reject' && confirming.open}
        title="Reject this payment?"
        text={
          confirming
            ? `${confirming.order.user.username}'s plan does not change; they are told the payment was rejected.`
            : ''
        }
        confirmLabel="Reject payment"
        destructive
        reasonHelp="Optional. The user sees it in the notification."
        reasonLabel="Reason"
        pending={review.isPending}
        error={review.isError ? errorMessage(review.error, 'Failed to reject the payment') : null}
        onConfirm={confirm}
        onClose={close}
      />
    </AdminSection>
  );
}
