import type { User } from '@berth/openapi';
import { Box, Button, Grid, Stack, TextField } from '@mui/material';
import { useMemo } from 'react';
import { errorMessage, fieldErrorsOf } from '../../api/api-error.ts';
import { useUpdateProfileMutation } from '../../api/profile.queries.ts';
import { useForm } from '../../components/form/use-form.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { ProfileSection } from './profile-section.tsx';
import { type PersonalValues, validatePersonal } from './profile-validation.ts';

/** Personal Information: first name, last name, username. */
export function PersonalInfoForm({ user }: { user: User }) {
  const update = useUpdateProfileMutation();
  const toast = useToast();
  const initial = useMemo<PersonalValues>(
    () => ({ firstName: user.firstName, lastName: user.lastName, username: user.username }),
    [user.firstName, user.lastName, user.username],
  );
  const form = useForm(initial, validatePersonal);

  const submit = form.handleSubmit((values) => {
    update.mutate(
      {
        firstName: values.firstName.trim(),
        lastName: values.lastName.trim(),
        username: values.username.trim(),
      },
      {
        onSuccess: () => toast.success('Profile updated successfully!'),
        onError: (error) => {
          form.showServerErrors(fieldErrorsOf(error));
          toast.error(errorMessage(error, 'Profile update failed'));
        },
      },
    );
  });

  return (
    <ProfileSection id="personal-information" title="Personal Information">
      <Stack component="form" noValidate onSubmit={submit} spacing={2.5}>
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...form.field('firstName')} label="First Name" autoComplete="given-name" />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...form.field('lastName')} label="Last Name" autoComplete="family-name" />
          </Grid>
        </Grid>
        <TextField {...form.field('username')} label="Username" autoComplete="username" />
        <Box>
          <Button type="submit" variant="contained" loading={update.isPending}>
            Save Changes
          </Button>
        </Box>
      </Stack>
    </ProfileSection>
  );
}
