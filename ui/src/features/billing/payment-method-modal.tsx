import type { Schemas } from '@berth/openapi';
import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  List,
  ListItem,
  ListItemText,
  Typography,
} from '@mui/material';
import { enabledMethods, NO_PAYMENT_METHODS_TEXT } from './billing.ts';

/** What the user is about to pay for, e.g. 'Pro, billed yearly'. */
export interface PaymentIntent {
  title: string;
}

/**
 * The payment method choice (spec customer-area §2.13). No payment provider exists yet, so this never
 * starts a checkout: without an enabled method it shows the spec's empty state.
 */
export function PaymentMethodModal({
  intent,
  methods,
  onClose,
}: {
  intent: PaymentIntent | null;
  methods: Schemas['PaymentSettings']['methods'] | undefined;
  onClose: () => void;
}) {
  const names = methods ? enabledMethods(methods) : [];
  return (
    <Dialog
      open={intent !== null}
      onClose={onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby="payment-method-title"
    >
      <DialogTitle id="payment-method-title">Choose a payment method</DialogTitle>
      <DialogContent>
        {intent && (
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            {intent.title}
          </Typography>
        )}
        {names.length === 0 ? (
          <Alert severity="info">{NO_PAYMENT_METHODS_TEXT}</Alert>
        ) : (
          <>
            <List dense aria-label="Payment methods">
              {names.map((name) => (
                <ListItem key={name} disableGutters>
                  <ListItemText primary={name} />
                </ListItem>
              ))}
            </List>
            <Alert severity="info">Online checkout is not available yet. Please contact support.</Alert>
          </>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Close</Button>
      </DialogActions>
    </Dialog>
  );
}
