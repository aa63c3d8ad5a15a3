import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { IconButton, InputAdornment, TextField } from '@mui/material';

/**
 * The API key's field on the API access page (api-access-page.tsx): the full key (hidden until revealed)
 * when this device has it, else the masked one, and what Berth keeps of it.
 */
export function ApiKeyField({
  shown,
  full,
  visible,
  onToggle,
  keeps,
}: {
  /** What the field shows: the full key, or the masked one. */
  shown: string;
  /** The full key when this device has it (just made, or kept in the keychain). */
  full: string | null;
  visible: boolean;
  onToggle: () => void;
  /** Whether this app keeps keys in the OS keychain (the desktop app). */
  keeps: boolean;
}) {
  return (
    <TextField
      label="API key"
      value={shown}
      type={full && !visible ? 'password' : 'text'}
      fullWidth
      slotProps={{
        htmlInput: { readOnly: true, spellCheck: false, style: { fontFamily: 'monospace' } },
        input: {
          endAdornment: full ? (
            <InputAdornment position="end">
              <IconButton
                aria-label={visible ? 'Hide API key' : 'Show API key'}
                onClick={onToggle}
                edge="end"
              >
                {visible ? <VisibilityOffIcon /> : <VisibilityIcon />}
              </IconButton>
            </InputAdornment>
          ) : undefined,
        },
      }}
      helperText={
        keeps && full
          ? 'Kept in this computer’s keychain: it shows here whenever you come back. Berth itself keeps only a fingerprint of it.'
          : full
            ? 'Copy it now: it is shown only this once. Berth keeps only a fingerprint of it.'
            : 'The full key was shown once, when it was made. Regenerate to get a new one.'
      }
    />
  );
}
