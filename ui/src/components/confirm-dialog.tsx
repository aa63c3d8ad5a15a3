import {
  Alert,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  TextField,
} from '@mui/material';
import { type ReactNode, useId, useState } from 'react';

/**
 * A yes/no question before a change (remove a domain, cancel a subscription, approve a payment). It
 * cannot be closed while the change runs; a failure (e.g. the server's 409 message) shows inside and the
 * dialog stays open. With `reasonLabel` it asks for an optional reason, passed to `onConfirm`.
 */
export function ConfirmDialog({
  open,
  title,
  text,
  children,
  confirmLabel,
  cancelLabel = 'Cancel',
  destructive = false,
  reasonLabel,
  reasonHelp,
  pending,
  error,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  text: string;
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  destructive?: boolean;
  reasonLabel?: string;
  /** Shown under the reason field. */
  reasonHelp?: string;
  pending: boolean;
  error?: string | null;
  onConfirm: (reason: string) => void;
  onClose: () => void;
}) {
  const id = useId();
  const [reason, setReason] = useState('');
  return (
    <Dialog
      open={open}
      onClose={() => !pending && onClose()}
      maxWidth="xs"
      fullWidth
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      slotProps={{ transition: { onExited: () => setReason('') } }}
    >
      <DialogTitle id={`${id}-title`}>{title}</DialogTitle>
      <DialogContent>
        <DialogContentText id={`${id}-text`}>{text}</DialogContentText>
        {children}
        {reasonLabel && (
          <TextField
            label={reasonLabel}
            value={reason}
            onChange={(event) => setReason(event.target.value)}
            multiline
            minRows={2}
            fullWidth
            helperText={reasonHelp}
            slotProps={{ htmlInput: { maxLength: 500 } }}
            sx={{ mt: 2.5 }}
          />
        )}
        {error && (
          <Alert severity="error" sx={{ mt: 2 }}>
            {error}
          </Alert>
        )}
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5 }}>
        <Button color="inherit" onClick={onClose} disabled={pending}>
          {cancelLabel}
        </Button>
        <Button
          variant="contained"
          color={destructive ? 'error' : 'primary'}
          onClick={() => onConfirm(reason.trim())}
          loading={pending}
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
