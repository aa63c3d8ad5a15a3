import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import TravelExploreIcon from '@mui/icons-material/TravelExplore';
import {
  Alert,
  Box,
  Button,
  Chip,
  IconButton,
  Link,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
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
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import {
  explorerTxUrl,
  formatAmount,
  isOpenOrder,
  NETWORKS,
  networkLabel,
  ORDER_STATUS_FILTERS,
  ORDER_STATUS_LABEL,
  type OrderStatusFilter,
  orderPurchase,
  shortHash,
  VERIFICATION_COLOR,
  VERIFICATION_LABEL,
  ZERO_VALUE_NOTICE,
} from './admin.ts';
import { AdminSection } from './admin-section.tsx';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function TransactionCell({ order }: { order: AdminMetaMaskOrder }) {
  const platform = usePlatform();
  const copy = useCopyToClipboard();
  if (!order.txHash)
    return (
      <Typography variant="body2" color="text.secondary">
        No transaction yet
      </Typography>
    );
  const { txHash } = order;
  const url = explorerTxUrl(order.chainId, txHash);
  const explorer = NETWORKS.find((network) => network.chainId === order.chainId)?.explorer.replace(
    'https://',
    '',
  );
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 0.25 }}>
        {url ? (
          <Link
            href={url}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open transaction ${shortHash(txHash)} on ${explorer}`}
            onClick={(event) => {
              event.preventDefault();
              platform.openExternal(url);
            }}
            sx={{ fontFamily: 'monospace', display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
          >
            {shortHash(txHash)}
            <OpenInNewIcon sx={{ fontSize: 14 }} aria-hidden />
          </Link>
        ) : (
          <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
            {shortHash(txHash)}
          </Typography>
        )}
        <Tooltip title="Copy transaction hash">
          <IconButton
            size="small"
            aria-label="Copy transaction hash"
            onClick={() => void copy(txHash, 'Transaction hash')}
          >
            <ContentCopyIcon sx={{ fontSize: 16 }} />
          </IconButton>
        </Tooltip>
      </Stack>
      <Typography variant="caption" color="text.secondary" component="div">
        {networkLabel(order.chainId)}
        {order.from && <> · from {shortHash(order.from)}</>}
      </Typography>
    </Box>
  );
}

function VerificationCell({ order }: { order: AdminMetaMaskOrder }) {
  const problems = order.verification?.problems ?? [];
  return (
    <Box sx={{ maxWidth: 280 }}>
      <Chip
        size="small"
        label={VERIFICATION_LABEL[order.verificationState]}
        color={VERIFICATION_COLOR[order.verificationState]}
        variant={order.verificationState === 'not_checked' ? 'outlined' : 'filled'}
      />
      {order.verificationNote && (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 0.5 }}>
          {order.verificationNote}
        </Typography>
      )}
      {problems.length > 0 && (
        <Box component="ul" aria-label="Problems" sx={{ m: 0, mt: 0.5, pl: 2.25, color: 'error.main' }}>
          {problems.map((problem) => (
            <Typography key={problem} component="li" variant="caption">
              {problem}
            </Typography>
          ))}
        </Box>
      )}
    </Box>
  );
}

type Pending = { action: 'approve' | 'reject'; order: AdminMetaMaskOrder; open: boolean };

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
      control={
        <TextField
          select
          size="small"
          label="Status"
          value={status}
          onChange={(event) => setStatus(event.target.value as OrderStatusFilter)}
          sx={{ width: { xs: '100%', sm: 240 }, flexShrink: 0 }}
        >
          {ORDER_STATUS_FILTERS.map((option) => (
            <MenuItem key={option.value} value={option.value}>
              {option.label}
            </MenuItem>
          ))}
        </TextField>
      }
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
                <TableRow key={order.id} hover sx={{ verticalAlign: 'top' }}>
                  <TableCell>
                    <Typography variant="body2" sx={{ fontWeight: 600 }}>
                      {order.user.username}
                    </Typography>
                    <Typography variant="caption" color="text.secondary" component="div">
                      {order.user.email}
                    </Typography>
                    <Typography variant="caption" color="text.secondary" component="div">
                      {DATE_TIME.format(new Date(order.createdAt))}
                    </Typography>
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{orderPurchase(order)}</TableCell>
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    {formatAmount(order.amount, order.currency)}
                  </TableCell>
                  <TableCell>
                    <TransactionCell order={order} />
                  </TableCell>
                  <TableCell>
                    <VerificationCell order={order} />
                  </TableCell>
                  <TableCell sx={{ whiteSpace: 'nowrap' }}>{ORDER_STATUS_LABEL[order.status]}</TableCell>
                  <TableCell align="right">
                    {isOpenOrder(order) ? (
                      <Stack
                        direction="row"
                        sx={{ gap: 1, justifyContent: 'flex-end', flexWrap: 'wrap', minWidth: 200 }}
                        role="group"
                        aria-label={`Review the payment of ${order.user.username}`}
                      >
                        {onChainChecks && (
                          <Button
                            size="small"
                            variant="outlined"
                            startIcon={<TravelExploreIcon />}
                            loading={busy(order, 'verify')}
                            disabled={review.isPending && !busy(order, 'verify')}
                            onClick={() => verify(order)}
                          >
                            Verify now
                          </Button>
                        )}
                        <Button
                          size="small"
                          variant="contained"
                          color="success"
                          startIcon={<CheckIcon />}
                          disabled={review.isPending}
                          onClick={() => {
                            review.reset();
                            setConfirming({ action: 'approve', order, open: true });
                          }}
                        >
                          Approve
                        </Button>
                        <Button
                          size="small"
                          variant="outlined"
                          color="error"
                          startIcon={<CloseIcon />}
                          disabled={review.isPending}
                          onClick={() => {
                            review.reset();
                            setConfirming({ action: 'reject', order, open: true });
                          }}
                        >
                          Reject
                        </Button>
                      </Stack>
                    ) : (
                      <Typography variant="body2" color="text.secondary">
                        —
                      </Typography>
                    )}
                  </TableCell>
                </TableRow>
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
