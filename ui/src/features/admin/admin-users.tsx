import SearchIcon from '@mui/icons-material/Search';
import {
  Box,
  FormControl,
  FormControlLabel,
  FormLabel,
  InputAdornment,
  LinearProgress,
  Radio,
  RadioGroup,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import {
  ADMIN_USER_PAGE_SIZE,
  type AdminUser,
  type GrantPlanRequest,
  useAdminUsersQuery,
  useGrantPlanMutation,
  useRevokePlanMutation,
} from '../../api/admin.queries.ts';
import { errorMessage } from '../../api/api-error.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useDebouncedValue } from '../../components/use-debounced-value.ts';
import { PLAN_LABEL } from './admin.ts';
import { AdminSection } from './admin-section.tsx';
import { AdminUserRow } from './admin-user-row.tsx';

const USER_SEARCH_DEBOUNCE_MS = 300;

type Dialog = { kind: 'grant' | 'revoke'; user: AdminUser; open: boolean };

function GrantFields({
  value,
  onChange,
}: {
  value: GrantPlanRequest;
  onChange: (value: GrantPlanRequest) => void;
}) {
  return (
    <Stack direction={{ xs: 'column', sm: 'row' }} sx={{ gap: 3, mt: 2.5 }}>
      <FormControl>
        <FormLabel id="grant-plan-label">Plan</FormLabel>
        <RadioGroup
          aria-labelledby="grant-plan-label"
          value={value.plan}
          onChange={(event) => onChange({ ...value, plan: event.target.value as GrantPlanRequest['plan'] })}
        >
          <FormControlLabel value="starter" control={<Radio />} label="Starter" />
          <FormControlLabel value="pro" control={<Radio />} label="Pro" />
        </RadioGroup>
      </FormControl>
      <FormControl>
        <FormLabel id="grant-cycle-label">Period</FormLabel>
        <RadioGroup
          aria-labelledby="grant-cycle-label"
          value={value.billingCycle}
          onChange={(event) =>
            onChange({ ...value, billingCycle: event.target.value as GrantPlanRequest['billingCycle'] })
          }
        >
          <FormControlLabel value="monthly" control={<Radio />} label="One month" />
          <FormControlLabel value="yearly" control={<Radio />} label="One year" />
        </RadioGroup>
      </FormControl>
    </Stack>
  );
}

/** The search box of the Users tab. */
function UserSearchField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <TextField
      type="search"
      size="small"
      value={value}
      onChange={(event) => onChange(event.target.value)}
      placeholder="Search by username or email"
      sx={{ width: { xs: '100%', sm: 320 }, flexShrink: 0 }}
      slotProps={{
        htmlInput: { 'aria-label': 'Search users', maxLength: 200 },
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/** The Users tab: search, one page of users, Grant plan and Revoke plan. */
export function AdminUsers() {
  const toast = useToast();
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput.trim(), USER_SEARCH_DEBOUNCE_MS);
  // The page belongs to a search term: a new term starts again at page 1.
  const [paging, setPaging] = useState({ search: '', page: 1 });
  const page = paging.search === search ? paging.page : 1;
  const query = useAdminUsersQuery({ page, limit: ADMIN_USER_PAGE_SIZE, search });
  const grant = useGrantPlanMutation();
  const revoke = useRevokePlanMutation();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [choice, setChoice] = useState<GrantPlanRequest>({ plan: 'pro', billingCycle: 'monthly' });

  const close = () => setDialog((current) => current && { ...current, open: false });
  const open = (kind: Dialog['kind'], user: AdminUser) => {
    grant.reset();
    revoke.reset();
    if (kind === 'grant')
      setChoice({ plan: user.plan === 'starter' ? 'starter' : 'pro', billingCycle: 'monthly' });
    setDialog({ kind, user, open: true });
  };

  const confirmGrant = () => {
    if (!dialog) return;
    const { user } = dialog;
    grant.mutate(
      { id: user.id, ...choice },
      {
        onSuccess: () => {
          close();
          const period = choice.billingCycle === 'yearly' ? 'one year' : 'one month';
          toast.success(`${PLAN_LABEL[choice.plan]} granted to ${user.username} for ${period}`);
        },
      },
    );
  };
  const confirmRevoke = () => {
    if (!dialog) return;
    const { user } = dialog;
    revoke.mutate(
      { id: user.id },
      {
        onSuccess: () => {
          close();
          toast.success(`Plan revoked for ${user.username}`);
        },
      },
    );
  };

  const data = query.data;
  return (
    <AdminSection
      id="admin-users"
      title="Users"
      text="Grant a plan by hand (no payment, no invoice) or revoke it; revoking suspends the user’s instances."
      control={<UserSearchField value={searchInput} onChange={setSearchInput} />}
    >
      {!data ? (
        <LoadState
          query={query}
          loading="Loading users..."
          failed={errorMessage(query.error, 'Failed to load the users')}
        />
      ) : data.users.length === 0 ? (
        <Typography color="text.secondary" sx={{ py: 4, textAlign: 'center' }}>
          {search ? 'No users match this search.' : 'No users yet.'}
        </Typography>
      ) : (
        <Box sx={{ position: 'relative' }}>
          {query.isFetching && (
            <LinearProgress
              aria-label="Loading users"
              sx={{ position: 'absolute', top: 0, left: 0, right: 0, zIndex: 1 }}
            />
          )}
          <TableContainer sx={{ border: 1, borderColor: 'divider', borderRadius: 1 }}>
            <Table size="small" aria-labelledby="admin-users-title">
              <TableHead>
                <TableRow>
                  <TableCell>Username</TableCell>
                  <TableCell>Email</TableCell>
                  <TableCell>Plan</TableCell>
                  <TableCell>Standing</TableCell>
                  <TableCell align="right">Instances</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.users.map((user) => (
                  <AdminUserRow
                    key={user.id}
                    user={user}
                    onGrant={() => open('grant', user)}
                    onRevoke={() => open('revoke', user)}
                  />
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <TablePagination
            component="div"
            count={data.total}
            page={Math.max(0, data.page - 1)}
            rowsPerPage={data.limit}
            rowsPerPageOptions={[]}
            onPageChange={(_event, next) => setPaging({ search, page: next + 1 })}
          />
        </Box>
      )}
      <ConfirmDialog
        open={dialog?.kind === 'grant' && dialog.open}
        title={dialog ? `Grant a plan to ${dialog.user.username}` : 'Grant a plan'}
        text="The plan starts at once, with no payment and no invoice; suspended instances resume."
        confirmLabel="Grant plan"
        pending={grant.isPending}
        error={grant.isError ? errorMessage(grant.error, 'Failed to grant the plan') : null}
        onConfirm={confirmGrant}
        onClose={close}
      >
        <GrantFields value={choice} onChange={setChoice} />
      </ConfirmDialog>
      <ConfirmDialog
        open={dialog?.kind === 'revoke' && dialog.open}
        title={dialog ? `Revoke the plan of ${dialog.user.username}?` : 'Revoke the plan?'}
        text="The plan ends at once and the user's instances are suspended until they get a plan again."
        confirmLabel="Revoke plan"
        cancelLabel="Keep plan"
        destructive
        pending={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error, 'Failed to revoke the plan') : null}
        onConfirm={confirmRevoke}
        onClose={close}
      />
    </AdminSection>
  );
}
