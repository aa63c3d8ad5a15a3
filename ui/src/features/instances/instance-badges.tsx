import { Chip } from '@mui/material';
import type { Instance } from '../../api/instances.queries.ts';
import { STATUS_LABELS, statusColor, typeBadge } from './instance-catalog.ts';

/** The status in its colour: running is filled (emphasised), the others outlined. */
export function StatusChip({ status }: { status: Instance['status'] }) {
  return (
    <Chip
      label={STATUS_LABELS[status]}
      color={statusColor(status)}
      variant={status === 'running' ? 'filled' : 'outlined'}
      size="small"
    />
  );
}

/** WordPress, n8n or Database. */
export function TypeBadge({ instance }: { instance: Instance }) {
  return <Chip label={typeBadge(instance)} color="primary" variant="outlined" size="small" />;
}

/** 'Suspended' when logins are refused because the subscription lapsed (unless the status says so). */
export function SuspendedBadge({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  if (instance.status === 'suspended' || !(instance.suspended || inactive)) return null;
  return <Chip label="Suspended" color="error" size="small" />;
}
