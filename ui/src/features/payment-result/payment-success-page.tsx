import CheckCircleOutlinedIcon from '@mui/icons-material/CheckCircleOutlined';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import DashboardIcon from '@mui/icons-material/Dashboard';
import DnsIcon from '@mui/icons-material/Dns';
import { Box, Button, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';
import { PAYMENT_SUCCESS_REDIRECT_SECONDS } from './payment-result.ts';
import { PaymentResultLayout } from './payment-result-layout.tsx';
import { RedirectCountdown } from './redirect-countdown.tsx';

export const PAYMENT_SUCCESS_TITLE = 'Payment Successful';
export const PAYMENT_SUCCESS_TEXT =
  'Thank you! Your payment has been received and your subscription is being updated.';
export const NO_TRANSACTION_TEXT = 'No transaction ID was given.';

const MONOSPACE = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';

function TransactionId({ tx }: { tx: string | null }) {
  const copy = useCopyToClipboard();
  return (
    <Box
      component="dl"
      sx={{
        mt: 3,
        mb: 0,
        mx: 'auto',
        px: 2,
        py: 1.5,
        borderRadius: 1,
        bgcolor: 'action.hover',
        maxWidth: 420,
      }}
    >
      <Typography component="dt" variant="caption" color="text.secondary">
        Transaction ID
      </Typography>
      <Stack
        component="dd"
        direction="row"
        sx={{ m: 0, alignItems: 'center', justifyContent: 'center', gap: 0.5 }}
      >
        {tx ? (
          <>
            <Typography sx={{ fontFamily: MONOSPACE, fontSize: '0.9rem', wordBreak: 'break-all' }}>
              {tx}
            </Typography>
            <Tooltip title="Copy transaction ID">
              <IconButton
                size="small"
                aria-label="Copy transaction ID"
                onClick={() => copy(tx, 'Transaction ID')}
              >
                <ContentCopyIcon fontSize="small" />
              </IconButton>
            </Tooltip>
          </>
        ) : (
          <Typography color="text.secondary">{NO_TRANSACTION_TEXT}</Typography>
        )}
      </Stack>
    </Box>
  );
}

/** /payment-success?tx=…: the transaction id, then /dashboard after 5 s. */
export function PaymentSuccessPage() {
  const [params] = useSearchParams();
  const tx = params.get('tx')?.trim() || null;

  return (
    <PaymentResultLayout
      icon={<CheckCircleOutlinedIcon color="success" />}
      title={PAYMENT_SUCCESS_TITLE}
      message={PAYMENT_SUCCESS_TEXT}
      countdown={
        <RedirectCountdown
          seconds={PAYMENT_SUCCESS_REDIRECT_SECONDS}
          to="/dashboard"
          label="your dashboard"
        />
      }
      actions={
        <>
          <Button variant="contained" startIcon={<DashboardIcon />} component={RouterLink} to="/dashboard">
            Go to Dashboard
          </Button>
          <Button variant="outlined" startIcon={<DnsIcon />} component={RouterLink} to="/instances">
            View Instances
          </Button>
        </>
      }
    >
      <TransactionId tx={tx} />
    </PaymentResultLayout>
  );
}
