import { Box, Button, Stack } from '@mui/material';
import { errorMessage } from '../../api/api-error.ts';
import { useChangePasswordMutation } from '../../api/profile.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { PasswordField } from '../../components/password-field.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { PasswordStrengthMeter } from '../auth/password-strength-meter.tsx';
import { ProfileSection } from './profile-section.tsx';
import { EMPTY_PASSWORD_CHANGE, validatePasswordChange } from './profile-validation.ts';

/** Change Password: current, new and confirmation. */
export function ChangePasswordForm() {
  const change = useChangePasswordMutation();
  const toast = useToast();
  const form = useForm(EMPTY_PASSWORD_CHANGE, validatePasswordChange);

  const submit = form.handleSubmit((values) => {
    change.mutate(
      { currentPassword: values.currentPassword, newPassword: values.newPassword },
      {
        onSuccess: () => {
          form.reset();
          toast.success('Password changed successfully!');
        },
        onError: (error) => toast.error(errorMessage(error, 'Password change failed')),
      },
    );
  });

  return (
    <ProfileSection id="change-password" title="Change Password">
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <PasswordField
          {...form.field('currentPassword')}
          label="Current Password"
          autoComplete="current-password"
        />
        <PasswordField {...form.field('newPassword')} label="New Password" autoComplete="new-password" />
        <PasswordStrengthMeter password={form.values.newPassword} />
        <PasswordField
          {...form.field('confirmPassword')}
          label="Confirm New Password"
          autoComplete="new-password"
        />
        <Box>
          <Button type="submit" variant="contained" loading={change.isPending}>
            Change Password
          </Button>
        </Box>
      </Stack>
    </ProfileSection>
  );
}
