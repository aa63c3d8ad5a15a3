import { Box, Container, Paper, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

export interface PaymentResultLayoutProps {
  /** A large decorative icon above the title. */
  icon: ReactNode;
  title: string;
  /** The main message, under the title. */
  message: ReactNode;
  /** Details between the message and the countdown (the transaction id). */
  children?: ReactNode;
  countdown: ReactNode;
  /** The buttons, primary action first. */
  actions: ReactNode;
}

/** The card both payment result screens share. */
export function PaymentResultLayout({
  icon,
  title,
  message,
  children,
  countdown,
  actions,
}: PaymentResultLayoutProps) {
  return (
    <Container maxWidth="sm" sx={{ py: { xs: 4, sm: 8 } }}>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center', borderRadius: 2 }}>
        <Box aria-hidden sx={{ display: 'flex', justifyContent: 'center', mb: 2, '& svg': { fontSize: 72 } }}>
          {icon}
        </Box>
        <Typography
          variant="h4"
          component="h1"
          gutterBottom
          sx={{ fontSize: { xs: '1.75rem', sm: '2.125rem' } }}
        >
          {title}
        </Typography>
        <Typography color="text.secondary">{message}</Typography>
        {children}
        <Box sx={{ mt: 3 }}>{countdown}</Box>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ justifyContent: 'center', mt: 3 }}>
          {actions}
        </Stack>
      </Paper>
    </Container>
  );
}
