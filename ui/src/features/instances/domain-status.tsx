import LockIcon from '@mui/icons-material/Lock';
import LockOpenIcon from '@mui/icons-material/LockOpen';
import { Chip } from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import { SSL_LABELS, sslColor } from './instance-catalog.ts';

// The domain's state as a site's panels show it; the form that changes it is domain-management.tsx.

/** 'SSL Active' / 'SSL Pending' / 'SSL Failed' of a custom domain; 'Not Configured' without one. */
export function SslBadge({ instance }: { instance: Pick<Instance, 'customDomain'> }) {
  const status = instance.customDomain?.ssl.status;
  if (!status) return <Chip size="small" variant="outlined" icon={<LockOpenIcon />} label="Not Configured" />;
  return (
    <Chip
      size="small"
      color={sslColor(status)}
      variant={status === 'Active' ? 'filled' : 'outlined'}
      icon={status === 'Active' ? <LockIcon /> : <LockOpenIcon />}
      label={SSL_LABELS[status]}
    />
  );
}

/** The host of a URL ('' when it is not one), the placeholder of the domain field. */
export function hostOf(url: string | null | undefined): string {
  try {
    return url ? new URL(url).host : '';
  } catch {
    return '';
  }
}
