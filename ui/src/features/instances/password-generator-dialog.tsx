import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import RefreshIcon from '@mui/icons-material/Refresh';
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
} from '@mui/material';
import { useState } from 'react';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';
import { generatePassword } from './generate-password.ts';

/** The WordPress admin password the generator proposes. */
const GENERATED_PASSWORD_LENGTH = 16;

/**
 * 'Generate Strong Password': a fresh 16-character password (upper, lower, digit,
 * symbol) with Copy, Regenerate and Use Password ('Password inserted'). Mount it when opening: each
 * opening proposes a new password ('Generated a strong password').
 */
export function PasswordGeneratorDialog({
  onClose,
  onUse,
}: {
  onClose(): void;
  onUse(password: string): void;
}) {
  const toast = useToast();
  const copy = useCopyToClipboard();
  const [password, setPassword] = useState(() => generatePassword(GENERATED_PASSWORD_LENGTH));

  const regenerate = () => {
    setPassword(generatePassword(GENERATED_PASSWORD_LENGTH));
    toast.success('Generated a strong password');
  };

  return (
    <Dialog open onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="generate-password-title">
      <DialogTitle id="generate-password-title">Generate Strong Password</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          {GENERATED_PASSWORD_LENGTH} characters with upper- and lower-case letters, digits and symbols.
        </DialogContentText>
        <Box
          data-testid="generated-password"
          aria-label="Generated password"
          role="textbox"
          aria-readonly
          sx={{
            p: 1.5,
            borderRadius: 1,
            border: 1,
            borderColor: 'divider',
            fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
            fontSize: '1.05rem',
            wordBreak: 'break-all',
          }}
        >
          {password}
        </Box>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2, flexWrap: 'wrap', gap: 1 }}>
        <Button startIcon={<ContentCopyIcon />} onClick={() => void copy(password, 'Password')}>
          Copy
        </Button>
        <Button startIcon={<RefreshIcon />} onClick={regenerate}>
          Regenerate
        </Button>
        <Box sx={{ flex: 1 }} />
        <Button onClick={onClose} color="inherit">
          Cancel
        </Button>
        <Button
          variant="contained"
          onClick={() => {
            onUse(password);
            toast.success('Password inserted');
            onClose();
          }}
        >
          Use Password
        </Button>
      </DialogActions>
    </Dialog>
  );
}
