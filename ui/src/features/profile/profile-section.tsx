import { Card, CardContent, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** One card of the profile page, a section named by its heading. */
export function ProfileSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <Card component="section" aria-labelledby={`${id}-title`} sx={{ height: '100%' }}>
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id={`${id}-title`} variant="h6" component="h2" sx={{ mb: 2.5 }}>
          {title}
        </Typography>
        {children}
      </CardContent>
    </Card>
  );
}
