import PersonRemoveIcon from '@mui/icons-material/PersonRemove';
import WorkspacePremiumIcon from '@mui/icons-material/WorkspacePremium';
import { Button, Chip, Stack, TableCell, TableRow, Typography } from '@mui/material';
import type { AdminUser } from '../../api/admin.queries.ts';
import { canRevoke, PLAN_LABEL, USER_STANDING_COLOR, USER_STANDING_LABEL } from './admin.ts';

/** One user in the Users tab (admin-users.tsx): who, plan, standing, instances, Grant and Revoke plan. */
export function AdminUserRow({
  user,
  onGrant,
  onRevoke,
}: {
  user: AdminUser;
  onGrant: () => void;
  onRevoke: () => void;
}) {
  return (
    <TableRow hover>
      <TableCell>
        <Stack direction="row" sx={{ gap: 1, alignItems: 'center' }}>
          <Typography variant="body2" sx={{ fontWeight: 600 }}>
            {user.username}
          </Typography>
          {user.role === 'admin' && <Chip label="Admin" size="small" variant="outlined" color="primary" />}
        </Stack>
      </TableCell>
      <TableCell sx={{ wordBreak: 'break-all' }}>{user.email}</TableCell>
      <TableCell>{PLAN_LABEL[user.plan]}</TableCell>
      <TableCell>
        <Chip
          size="small"
          label={USER_STANDING_LABEL[user.standing]}
          color={USER_STANDING_COLOR[user.standing]}
        />
      </TableCell>
      <TableCell align="right">{user.instancesUsed}</TableCell>
      <TableCell align="right">
        <Stack
          direction="row"
          sx={{ gap: 1, justifyContent: 'flex-end', flexWrap: 'wrap' }}
          role="group"
          aria-label={`Plan of ${user.username}`}
        >
          <Button size="small" variant="outlined" startIcon={<WorkspacePremiumIcon />} onClick={onGrant}>
            Grant plan
          </Button>
          {canRevoke(user) && (
            <Button size="small" color="error" startIcon={<PersonRemoveIcon />} onClick={onRevoke}>
              Revoke plan
            </Button>
          )}
        </Stack>
      </TableCell>
    </TableRow>
  );
}
