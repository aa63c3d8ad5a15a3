import CheckIcon from '@mui/icons-material/Check';
import CloseIcon from '@mui/icons-material/Close';
import TravelExploreIcon from '@mui/icons-material/TravelExplore';
import { Button, Stack, TableCell, TableRow, Typography } from '@mui/material';
import type { AdminMetaMaskOrder } from '../../api/admin.queries.ts';
import { formatAmount, isOpenOrder, ORDER_STATUS_LABEL, orderPurchase } from './admin.ts';
import { TransactionCell, VerificationCell } from './metamask-order-cells.tsx';

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

type ReviewAction = 'verify' | 'approve' | 'reject';

/**
 * One MetaMask payment in the review table (metamask-review.tsx): who, what, the transaction, the
 * on-chain check, and while it is open its Verify now / Approve / Reject buttons.
 */
export function MetaMaskOrderRow({
  order,
  onChainChecks,
  pending,
  busy,
  onVerify,
  onReview,
}: {
  order: AdminMetaMaskOrder;
  onChainChecks: boolean;
  /** Whether a review of any payment is under way (every button waits). */
  pending: boolean;
  /** Whether `action` of this payment is under way. */
  busy: (action: ReviewAction) => boolean;
  onVerify: () => void;
  /** Asks to confirm approving or rejecting this payment. */
  onReview: (action: 'approve' | 'reject') => void;
}) {
  return (
    <TableRow hover sx={{ verticalAlign: 'top' }}>
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
                loading={busy('verify')}
                disabled={pending && !busy('verify')}
                onClick={onVerify}
              >
                Verify now
              </Button>
            )}
            <Button
              size="small"
              variant="contained"
              color="success"
              startIcon={<CheckIcon />}
              disabled={pending}
              onClick={() => onReview('approve')}
            >
              Approve
            </Button>
            <Button
              size="small"
              variant="outlined"
              color="error"
              startIcon={<CloseIcon />}
              disabled={pending}
              onClick={() => onReview('reject')}
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
  );
}
