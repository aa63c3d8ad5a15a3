import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import { Box, LinearProgress, List, ListItem, ListItemIcon, ListItemText, Typography } from '@mui/material';
import { PASSWORD_CHECKS, passwordScore, type StrengthLabel, strengthLabel } from './password-strength.ts';

const COLOR: Record<StrengthLabel, 'error' | 'warning' | 'info' | 'success'> = {
  Weak: 'error',
  Fair: 'warning',
  Good: 'info',
  Strong: 'success',
};

/** Strength bar and the live checklist of the five password checks. */
export function PasswordStrengthMeter({ password }: { password: string }) {
  const score = passwordScore(password);
  const label = strengthLabel(score);
  return (
    <Box>
      {password.length > 0 && (
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 1 }}>
          <LinearProgress
            variant="determinate"
            value={(score / PASSWORD_CHECKS.length) * 100}
            color={COLOR[label]}
            aria-label="Password strength"
            sx={{ flexGrow: 1, height: 6, borderRadius: 3 }}
          />
          <Typography variant="caption" color={`${COLOR[label]}.main`} sx={{ fontWeight: 600, minWidth: 48 }}>
            {label}
          </Typography>
        </Box>
      )}
      <List dense disablePadding aria-label="Password requirements">
        {PASSWORD_CHECKS.map((check) => {
          const met = check.test(password);
          return (
            <ListItem key={check.id} disableGutters sx={{ py: 0 }}>
              <ListItemIcon sx={{ minWidth: 28 }}>
                {met ? (
                  <CheckCircleIcon fontSize="small" color="success" titleAccess="Met" />
                ) : (
                  <RadioButtonUncheckedIcon fontSize="small" color="disabled" titleAccess="Not met" />
                )}
              </ListItemIcon>
              <ListItemText
                primary={check.label}
                slotProps={{ primary: { variant: 'body2', color: met ? 'text.primary' : 'text.secondary' } }}
              />
            </ListItem>
          );
        })}
      </List>
    </Box>
  );
}
