import { Alert, Snackbar, type SnackbarCloseReason } from '@mui/material';

export type ToastSeverity = 'success' | 'error' | 'info' | 'warning';

/** One toast: an MUI Snackbar + filled Alert that hides itself after `duration` ms. */
export function ToastItem({
  message,
  severity,
  open,
  duration,
  onClose,
  onExited,
}: {
  message: string;
  severity: ToastSeverity;
  open: boolean;
  duration: number;
  onClose(): void;
  onExited(): void;
}) {
  return (
    <Snackbar
      open={open}
      autoHideDuration={duration}
      onClose={(_event, reason?: SnackbarCloseReason) => {
        if (reason !== 'clickaway') onClose();
      }}
      slotProps={{ transition: { onExited } }}
      sx={{ position: 'static', transform: 'none', pointerEvents: 'auto' }}
    >
      <Alert
        severity={severity}
        variant="filled"
        onClose={onClose}
        sx={{ width: { xs: '100%', sm: 360 }, boxShadow: 6 }}
      >
        {message}
      </Alert>
    </Snackbar>
  );
}
