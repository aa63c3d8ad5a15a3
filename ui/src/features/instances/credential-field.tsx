import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { Box, IconButton, Stack, Tooltip, Typography } from '@mui/material';
import { useState } from 'react';
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';

const NOT_AVAILABLE = 'Not available';
const MASK = '••••••••••••';

/**
 * One connection detail as a term and its value, with a copy button ('{label} copied to clipboard');
 * a secret is masked until shown. 'Not available' when missing. Use inside a `dl`.
 */
export function CredentialField({
  label,
  value,
  secret = false,
}: {
  label: string;
  value: string | null | undefined;
  secret?: boolean;
}) {
  const copy = useCopyToClipboard();
  const [visible, setVisible] = useState(false);
  // 'Show database password', 'Show SFTP password': words in capitals (acronyms) keep them.
  const what = label
    .split(' ')
    .map((word) => (/^[A-Z]{2,}$/.test(word) ? word : word.toLowerCase()))
    .join(' ');
  const missing = value === null || value === undefined || value === '';

  return (
    <Box sx={{ py: 1, borderTop: 1, borderColor: 'divider', '&:first-of-type': { borderTop: 0 } }}>
      <Typography component="dt" variant="caption" color="text.secondary">
        {label}
      </Typography>
      <Stack component="dd" direction="row" sx={{ m: 0, alignItems: 'center', gap: 0.5, minHeight: 34 }}>
        <Typography
          sx={{
            fontFamily: missing ? undefined : 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
            fontSize: missing ? undefined : '0.9rem',
            color: missing ? 'text.secondary' : 'text.primary',
            wordBreak: 'break-all',
            mr: 'auto',
          }}
          data-secret={secret && !visible ? 'masked' : undefined}
        >
          {missing ? NOT_AVAILABLE : secret && !visible ? MASK : value}
        </Typography>
        {!missing && secret && (
          <Tooltip title={visible ? `Hide ${what}` : `Show ${what}`}>
            <IconButton
              size="small"
              aria-label={visible ? `Hide ${what}` : `Show ${what}`}
              onClick={() => setVisible((current) => !current)}
            >
              {visible ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
            </IconButton>
          </Tooltip>
        )}
        {!missing && (
          <Tooltip title={`Copy ${what}`}>
            <IconButton
              size="small"
              aria-label={`Copy ${what}`}
              onClick={() => void copy(value ?? '', label)}
            >
              <ContentCopyIcon fontSize="small" />
            </IconButton>
          </Tooltip>
        )}
      </Stack>
    </Box>
  );
}
