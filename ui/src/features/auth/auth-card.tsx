import { Box, Card, CardContent, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** The centered card that frames the sign-in and registration forms. */
export function AuthCard({
  title,
  subtitle,
  children,
  footer,
  maxWidth = 440,
}: {
  title: string;
  subtitle: string;
  children: ReactNode;
  footer: ReactNode;
  maxWidth?: number;
}) {
  return (
    <Box sx={{ display: 'flex', justifyContent: 'center', px: 2, py: { xs: 4, sm: 8 } }}>
      <Card sx={{ width: '100%', maxWidth }}>
        <CardContent sx={{ p: { xs: 3, sm: 4 }, '&:last-child': { pb: { xs: 3, sm: 4 } } }}>
          <Typography variant="h4" component="h1" sx={{ mb: 1 }}>
            {title}
          </Typography>
          <Typography color="text.secondary" sx={{ mb: 3 }}>
            {subtitle}
          </Typography>
          {children}
          <Typography variant="body2" color="text.secondary" sx={{ mt: 3, textAlign: 'center' }}>
            {footer}
          </Typography>
        </CardContent>
      </Card>
    </Box>
  );
}
