import type { User } from '@berth/openapi';
import { Box, Container, Grid, Stack, Typography } from '@mui/material';
import { useCurrentUser } from '../session/use-session.ts';
import { currentPlanName, instanceAllowance, standingOf } from '../subscription/standing.ts';
import { AvatarCard } from './avatar-card.tsx';
import { ChangePasswordForm } from './change-password-form.tsx';
import { PersonalInfoForm } from './personal-info-form.tsx';
import { ProfileSection } from './profile-section.tsx';

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'long' });

function AccountInformation({ user }: { user: User }) {
  const sub = user.subscription;
  const rows = [
    ['Email', user.email],
    ['Account created', DATE.format(new Date(user.createdAt))],
    ['Subscription plan', currentPlanName(sub, standingOf(sub, new Date()))],
    ['Instance limit', instanceAllowance(sub.maxInstances)],
  ] as const;
  return (
    <ProfileSection id="account-information" title="Account Information">
      <Box component="dl" sx={{ m: 0 }}>
        {rows.map(([label, value]) => (
          <Stack
            key={label}
            direction="row"
            sx={{ justifyContent: 'space-between', gap: 2, py: 1.25, borderTop: 1, borderColor: 'divider' }}
          >
            <Typography component="dt" color="text.secondary">
              {label}
            </Typography>
            <Typography
              component="dd"
              sx={{ m: 0, fontWeight: 600, textAlign: 'right', wordBreak: 'break-word' }}
            >
              {value}
            </Typography>
          </Stack>
        ))}
      </Box>
    </ProfileSection>
  );
}

/** Profile Settings, /profile. */
export function ProfilePage() {
  const user = useCurrentUser();
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <Box sx={{ mb: 4 }}>
        <Typography variant="h4" component="h1">
          Profile Settings
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          Your picture, personal information and password.
        </Typography>
      </Box>
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 6 }}>
          <AvatarCard user={user} />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <PersonalInfoForm user={user} />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <ChangePasswordForm />
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <AccountInformation user={user} />
        </Grid>
      </Grid>
    </Container>
  );
}
