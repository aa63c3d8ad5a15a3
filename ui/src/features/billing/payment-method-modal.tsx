import type { Schemas } from '@berth/openapi';
import AccountBalanceIcon from '@mui/icons-material/AccountBalance';
import AccountBalanceWalletIcon from '@mui/icons-material/AccountBalanceWallet';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import PaymentsIcon from '@mui/icons-material/Payments';
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  Typography,
} from '@mui/material';
import { type ReactNode, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { ApiRequestError } from '../../api/api-error.ts';
import {
  type Purchase,
  type RedirectProvider,
  useCreatePaymentMutation,
} from '../../api/payments.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import {
  CREATE_PAYMENT_FAILED_TEXT,
  enabledMethods,
  inAppResultPath,
  NO_PAYMENT_METHODS_TEXT,
  type PaymentMethodInfo,
  type PaymentMethodKey,
} from './billing.ts';
import { MetaMaskPayment } from './metamask-payment.tsx';

type PaymentMethods = Schemas['PaymentSettings']['methods'];

/** What the user is about to pay for: a title such as 'Pro, billed yearly' and the purchase itself. */
export interface PaymentIntent {
  title: string;
  purchase: Purchase;
}

const METHOD_ICONS: Record<PaymentMethodKey, ReactNode> = {
  stripe: <CreditCardIcon />,
  paypalBusiness: <AccountBalanceIcon />,
  paypalStandard: <PaymentsIcon />,
  metamask: <AccountBalanceWalletIcon />,
};

interface Failure {
  message: string;
  details: string | null;
}

/**
 * Why creating the payment failed: a 4xx carries the server's message (method unavailable, add-on not
 * allowed, downgrade blocked); network failures and 5xx are 'Failed to create payment URL'.
 */
function failureOf(error: unknown): Failure & { serverSide: boolean } {
  if (error instanceof ApiRequestError && error.status < 500)
    return { message: error.body?.message ?? CREATE_PAYMENT_FAILED_TEXT, details: null, serverSide: false };
  // The provider's own error stays in the server log; the answer names the request id it is logged under.
  const requestId = error instanceof ApiRequestError ? error.body?.details?.requestId : undefined;
  return {
    message: CREATE_PAYMENT_FAILED_TEXT,
    details: typeof requestId === 'string' ? `Reference: ${requestId}` : null,
    serverSide: true,
  };
}

function MethodButton({
  method,
  pending,
  disabled,
  onClick,
}: {
  method: PaymentMethodInfo;
  pending: boolean;
  disabled: boolean;
  onClick: () => void;
}) {
  const descriptionId = `payment-method-${method.key}-description`;
  return (
    <Button
      variant="outlined"
      color="inherit"
      fullWidth
      onClick={onClick}
      disabled={disabled || pending}
      aria-label={method.name}
      aria-describedby={descriptionId}
      aria-busy={pending || undefined}
      sx={{
        justifyContent: 'flex-start',
        textAlign: 'left',
        textTransform: 'none',
        gap: 2,
        px: 2,
        py: 1.5,
        borderColor: 'divider',
        '&:hover': { borderColor: 'primary.main', bgcolor: 'action.hover' },
      }}
    >
      <Box sx={{ display: 'flex', color: 'primary.main', flexShrink: 0 }} aria-hidden>
        {pending ? <CircularProgress size={24} color="inherit" /> : METHOD_ICONS[method.key]}
      </Box>
      <Box sx={{ minWidth: 0 }}>
        <Typography component="span" sx={{ display: 'block', fontWeight: 600 }}>
          {method.name}
        </Typography>
        <Typography id={descriptionId} component="span" variant="body2" color="text.secondary">
          {method.description}
        </Typography>
      </Box>
    </Button>
  );
}

/**
 * The payment method choice: one button per
 * enabled method. A redirect method creates the payment and sends the user to the provider's page
 * (platform.openPaymentPage); an answer pointing at our own /payment-success page (a Stripe plan changed
 * in place) is followed inside the app. MetaMask continues in this dialog (metamask-payment.tsx).
 */
export function PaymentMethodModal({
  intent,
  methods,
  onClose,
}: {
  intent: PaymentIntent | null;
  methods: PaymentMethods | undefined;
  onClose: () => void;
}) {
  const platform = usePlatform();
  const navigate = useNavigate();
  const toast = useToast();
  const create = useCreatePaymentMutation();
  const [failure, setFailure] = useState<Failure | null>(null);
  const [redirected, setRedirected] = useState(false);
  const [metaMask, setMetaMask] = useState(false);
  const available = methods ? enabledMethods(methods) : [];
  const { reset } = create;
  // The last purchase stays on screen while the dialog fades out.
  const [shown, setShown] = useState(intent);
  if (intent && intent !== shown) setShown(intent);

  // Every opening starts afresh.
  useEffect(() => {
    if (!intent) return;
    reset();
    setFailure(null);
    setRedirected(false);
    setMetaMask(false);
  }, [intent, reset]);

  // Back from the provider's page through the browser's page cache: the choice is open again.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setRedirected(false);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const busy = create.isPending || (redirected && platform.kind === 'web');
  const close = () => {
    if (!create.isPending) onClose();
  };

  const pay = (provider: RedirectProvider) => {
    if (!intent) return;
    setFailure(null);
    create.mutate(
      { purchase: intent.purchase, provider },
      {
        onSuccess: ({ redirectUrl, paypalUrl }) => {
          const url = redirectUrl || paypalUrl || '';
          const origins = [window.location.origin];
          if (platform.apiBaseUrl) origins.push(new URL(platform.apiBaseUrl).origin);
          const inApp = inAppResultPath(url, origins);
          if (inApp) {
            onClose();
            navigate(inApp);
            return;
          }
          setRedirected(true);
          platform.openPaymentPage(url);
        },
        onError: (error) => {
          const { serverSide, ...shown } = failureOf(error);
          if (serverSide) toast.error(CREATE_PAYMENT_FAILED_TEXT);
          setFailure(shown);
        },
      },
    );
  };

  const pendingProvider = create.isPending ? create.variables?.provider : undefined;

  return (
    <Dialog
      open={intent !== null}
      onClose={close}
      fullWidth
      maxWidth="sm"
      aria-labelledby="payment-method-title"
      aria-describedby="payment-method-purchase"
    >
      <DialogTitle id="payment-method-title">Choose a payment method</DialogTitle>
      <DialogContent>
        {shown && (
          <Typography id="payment-method-purchase" color="text.secondary" sx={{ mb: 2.5 }}>
            {shown.title}
          </Typography>
        )}
        {available.length === 0 ? (
          <Alert severity="info">{NO_PAYMENT_METHODS_TEXT}</Alert>
        ) : metaMask && shown && methods ? (
          <MetaMaskPayment
            purchase={shown.purchase}
            settings={methods.metamask}
            onBack={() => setMetaMask(false)}
          />
        ) : (
          <Stack spacing={1.5} role="group" aria-label="Payment methods">
            {available.map((method) => (
              <MethodButton
                key={method.key}
                method={method}
                pending={method.provider !== null && pendingProvider === method.provider}
                disabled={busy}
                onClick={() => (method.provider ? pay(method.provider) : setMetaMask(true))}
              />
            ))}
          </Stack>
        )}
        {failure && (
          <Alert severity="error" sx={{ mt: 2.5 }}>
            {failure.details ? (
              <>
                <AlertTitle>{failure.message}</AlertTitle>
                {failure.details}
              </>
            ) : (
              failure.message
            )}
          </Alert>
        )}
        {redirected && (
          <Alert severity="info" sx={{ mt: 2.5 }}>
            {platform.kind === 'desktop'
              ? 'The payment page opened in your browser. Your plan updates here once the payment is confirmed.'
              : 'Taking you to the payment page…'}
          </Alert>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={close} disabled={create.isPending}>
          Close
        </Button>
      </DialogActions>
    </Dialog>
  );
}
