import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import OpenInNewIcon from '@mui/icons-material/OpenInNew';
import { Box, Chip, IconButton, Link, Stack, Tooltip, Typography } from '@mui/material';
import type { AdminMetaMaskOrder } from '../../api/admin.queries.ts';
import { useCopyToClipboard } from '../../components/use-copy-to-clipboard.ts';
import { usePlatform } from '../../platform/platform-context.ts';
import {
  explorerTxUrl,
  NETWORKS,
  networkLabel,
  shortHash,
  VERIFICATION_COLOR,
  VERIFICATION_LABEL,
} from './admin.ts';

// Two cells of a MetaMask payment under review (metamask-order-row.tsx): its transaction and what the
// on-chain check found.

export function TransactionCell({ order }: { order: AdminMetaMaskOrder }) {
  const platform = usePlatform();
  const copy = useCopyToClipboard();
  if (!order.txHash)
    return (
      <Typography variant="body2" color="text.secondary">
        No transaction yet
      </Typography>
    );
  const { txHash } = order;
  const url = explorerTxUrl(order.chainId, txHash);
  const explorer = NETWORKS.find((network) => network.chainId === order.chainId)?.explorer.replace(
    'https://',
    '',
  );
  return (
    <Box>
      <Stack direction="row" sx={{ alignItems: 'center', gap: 0.25 }}>
        {url ? (
          <Link
            href={url}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open transaction ${shortHash(txHash)} on ${explorer}`}
            onClick={(event) => {
              event.preventDefault();
              platform.openExternal(url);
            }}
            sx={{ fontFamily: 'monospace', display: 'inline-flex', alignItems: 'center', gap: 0.5 }}
          >
            {shortHash(txHash)}
            <OpenInNewIcon sx={{ fontSize: 14 }} aria-hidden />
          </Link>
        ) : (
          <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
            {shortHash(txHash)}
          </Typography>
        )}
        <Tooltip title="Copy transaction hash">
          <IconButton
            size="small"
            aria-label="Copy transaction hash"
            onClick={() => void copy(txHash, 'Transaction hash')}
          >
            <ContentCopyIcon sx={{ fontSize: 16 }} />
          </IconButton>
        </Tooltip>
      </Stack>
      <Typography variant="caption" color="text.secondary" component="div">
        {networkLabel(order.chainId)}
        {order.from && <> · from {shortHash(order.from)}</>}
      </Typography>
    </Box>
  );
}

export function VerificationCell({ order }: { order: AdminMetaMaskOrder }) {
  const problems = order.verification?.problems ?? [];
  return (
    <Box sx={{ maxWidth: 280 }}>
      <Chip
        size="small"
        label={VERIFICATION_LABEL[order.verificationState]}
        color={VERIFICATION_COLOR[order.verificationState]}
        variant={order.verificationState === 'not_checked' ? 'outlined' : 'filled'}
      />
      {order.verificationNote && (
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 0.5 }}>
          {order.verificationNote}
        </Typography>
      )}
      {problems.length > 0 && (
        <Box component="ul" aria-label="Problems" sx={{ m: 0, mt: 0.5, pl: 2.25, color: 'error.main' }}>
          {problems.map((problem) => (
            <Typography key={problem} component="li" variant="caption">
              {problem}
            </Typography>
          ))}
        </Box>
      )}
    </Box>
  );
}
