import DashboardIcon from '@mui/icons-material/Dashboard';
import ErrorOutlinedIcon from '@mui/icons-material/ErrorOutlined';
import HighlightOffIcon from '@mui/icons-material/HighlightOff';
import ReplayIcon from '@mui/icons-material/Replay';
import { Button } from '@mui/material';
import { Link as RouterLink, useSearchParams } from 'react-router';
import {
  failureReason,
  PAYMENT_FAILED_REDIRECT_SECONDS,
  PAYMENT_FAILURE_TEXTS,
  type PaymentFailureReason,
} from './payment-result.ts';
import { PaymentResultLayout } from './payment-result-layout.tsx';
import { RedirectCountdown } from './redirect-countdown.tsx';

export const PAYMENT_FAILED_TITLE = 'Payment Failed';
export const PAYMENT_CANCELLED_TITLE = 'Payment Cancelled';

/**
 * /payment-error?reason=… and /payment-cancelled: the reason's text,
 * then /pricing after 10 s. `defaultReason` applies when the URL names no reason.
 */
export function PaymentFailedPage({ defaultReason = 'other' }: { defaultReason?: PaymentFailureReason }) {
  const [params] = useSearchParams();
  const reason = failureReason(params.get('reason'), defaultReason);
  const cancelled = reason === 'cancelled';

  return (
    <PaymentResultLayout
      icon={cancelled ? <HighlightOffIcon color="warning" /> : <ErrorOutlinedIcon color="error" />}
      title={cancelled ? PAYMENT_CANCELLED_TITLE : PAYMENT_FAILED_TITLE}
      message={PAYMENT_FAILURE_TEXTS[reason]}
      countdown={
        <RedirectCountdown seconds={PAYMENT_FAILED_REDIRECT_SECONDS} to="/pricing" label="pricing" />
      }
      actions={
        <>
          <Button variant="contained" startIcon={<ReplayIcon />} component={RouterLink} to="/pricing">
            Try Again
          </Button>
          <Button variant="outlined" startIcon={<DashboardIcon />} component={RouterLink} to="/dashboard">
            Go to Dashboard
          </Button>
        </>
      }
    />
  );
}

/** /payment-cancelled: the same screen, cancelled unless the URL names another reason. */
export function PaymentCancelledPage() {
  return <PaymentFailedPage defaultReason="cancelled" />;
}
