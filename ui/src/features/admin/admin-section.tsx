import { Box, Card, CardContent, Stack, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** A card of the admin panel: a titled section with a line of help and a control on the right. */
export function AdminSection({
  id,
  title,
  text,
  control,
  children,
}: {
  id: string;
  title: string;
  text: string;
  control: ReactNode;
  children: ReactNode;
}) {
  return (
    <Card component="section" aria-labelledby={`${id}-title`}>
      <CardContent sx={{ p: 3 }}>
        <Stack
          direction={{ xs: 'column', sm: 'row' }}
          sx={{ gap: 2, justifyContent: 'space-between', alignItems: { sm: 'flex-start' }, mb: 2 }}
        >
          <Box>
            <Typography id={`${id}-title`} variant="h6" component="h2">
              {title}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              {text}
            </Typography>
          </Box>
          {control}
        </Stack>
        {children}
      </CardContent>
    </Card>
  );
}
