import SendIcon from '@mui/icons-material/Send';
import {
  Alert,
  Box,
  Button,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormLabel,
  MenuItem,
  Radio,
  RadioGroup,
  Stack,
  TextField,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  type SendNotificationRequest,
  useNotificationsConfigQuery,
  useSendNotificationMutation,
  useUserSummariesQuery,
} from '../../api/help.queries.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useDebouncedValue } from '../../components/use-debounced-value.ts';
import { AdminSection } from './admin-section.tsx';

type Scope = SendNotificationRequest['scope'];
type Plan = NonNullable<SendNotificationRequest['plan']>;

/**
 * The Notifications tab ('Send Notifications', spec platform-area "Admin panel"): an announcement to
 * all users, the users of a plan, or one user; by e-mail too when the server sends real mail.
 */
export function AdminNotifications() {
  const toast = useToast();
  const config = useNotificationsConfigQuery();
  const smtpEnabled = config.data?.smtpEnabled === true;
  const send = useSendNotificationMutation();
  const [scope, setScope] = useState<Scope>('all');
  const [plan, setPlan] = useState<Plan>('starter');
  const [filter, setFilter] = useState('');
  const search = useDebouncedValue(filter.trim(), 300);
  const users = useUserSummariesQuery(search, scope === 'single');
  const [userId, setUserId] = useState('');
  const [title, setTitle] = useState('');
  const [message, setMessage] = useState('');
  const [sendEmail, setSendEmail] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!title.trim() || !message.trim()) return setError('Title and message are required');
    if (scope === 'single' && !userId) return setError('Please select a user');
    setError(null);
    send.mutate(
      {
        scope,
        title: title.trim(),
        message: message.trim(),
        type: 'announcement',
        ...(scope === 'plan' ? { plan } : {}),
        ...(scope === 'single' ? { userId } : {}),
        // Sent only when the server sends e-mail and the box is checked.
        ...(smtpEnabled && sendEmail ? { sendEmail: true } : {}),
      },
      {
        onSuccess: ({ count }) => {
          toast.success(`Sent to ${count} user(s)`);
          setTitle('');
          setMessage('');
        },
        onError: (err) => toast.error(errorMessage(err, 'Failed to send notification')),
      },
    );
  };

  const choices = users.data?.users ?? [];
  return (
    <AdminSection
      id="admin-send-notifications"
      title="Send Notifications"
      text="An in-app notification for all users, the users of a plan, or one user."
      control={null}
    >
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5} sx={{ maxWidth: 640 }}>
        <FormControl>
          <FormLabel id="notify-audience-label">Audience</FormLabel>
          <RadioGroup
            row
            aria-labelledby="notify-audience-label"
            value={scope}
            onChange={(event) => setScope(event.target.value as Scope)}
          >
            <FormControlLabel value="all" control={<Radio />} label="All users" />
            <FormControlLabel value="plan" control={<Radio />} label="By plan" />
            <FormControlLabel value="single" control={<Radio />} label="Single user" />
          </RadioGroup>
        </FormControl>
        {scope === 'plan' && (
          <TextField
            select
            label="Plan"
            value={plan}
            onChange={(event) => setPlan(event.target.value as Plan)}
          >
            <MenuItem value="starter">Starter</MenuItem>
            <MenuItem value="pro">Pro</MenuItem>
          </TextField>
        )}
        {scope === 'single' && (
          <Box>
            <Stack spacing={2}>
              <TextField
                label="Filter by name or email"
                value={filter}
                onChange={(event) => setFilter(event.target.value)}
              />
              <TextField
                select
                label="User"
                value={userId}
                onChange={(event) => setUserId(event.target.value)}
                slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
              >
                <MenuItem value="">-- Choose a user --</MenuItem>
                {choices.map((user) => (
                  <MenuItem key={user.id} value={user.id}>
                    {user.firstName} {user.lastName} ({user.email})
                  </MenuItem>
                ))}
              </TextField>
            </Stack>
          </Box>
        )}
        <TextField label="Title" value={title} onChange={(event) => setTitle(event.target.value)} required />
        <TextField
          label="Message"
          value={message}
          onChange={(event) => setMessage(event.target.value)}
          multiline
          minRows={4}
          required
        />
        {smtpEnabled && (
          <FormControlLabel
            control={
              <Checkbox checked={sendEmail} onChange={(event) => setSendEmail(event.target.checked)} />
            }
            label="Also send via email"
          />
        )}
        {error && <Alert severity="error">{error}</Alert>}
        <Box>
          <Button type="submit" variant="contained" startIcon={<SendIcon />} disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Send Notification'}
          </Button>
        </Box>
      </Stack>
    </AdminSection>
  );
}
