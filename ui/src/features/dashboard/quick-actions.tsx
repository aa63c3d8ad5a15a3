import AddCircleOutlineIcon from '@mui/icons-material/AddCircleOutlineOutlined';
import CodeIcon from '@mui/icons-material/Code';
import CreditCardIcon from '@mui/icons-material/CreditCard';
import DnsIcon from '@mui/icons-material/Dns';
import HelpOutlineIcon from '@mui/icons-material/HelpOutlineOutlined';
import PersonOutlineIcon from '@mui/icons-material/PersonOutlineOutlined';
import { Box, Card, CardActionArea, CardContent, Grid, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import { existingLinks, QUICK_ACTIONS, type QuickAction } from '../../navigation/navigation.ts';
import { useScreenExists } from '../../navigation/screen-exists.ts';

const ICONS: Record<QuickAction['icon'], ReactNode> = {
  instances: <DnsIcon />,
  deploy: <AddCircleOutlineIcon />,
  billing: <CreditCardIcon />,
  api: <CodeIcon />,
  help: <HelpOutlineIcon />,
  profile: <PersonOutlineIcon />,
};

/** Quick Actions: a tile per screen that exists for this user. */
export function QuickActions() {
  const exists = useScreenExists();
  const actions = existingLinks(QUICK_ACTIONS, exists);
  if (actions.length === 0) return null;
  // Rows of three, or of four when that leaves none half empty.
  const columns = actions.length % 3 !== 0 && actions.length % 4 === 0 ? 3 : 4;
  return (
    <Box component="section" aria-labelledby="quick-actions-title">
      <Typography id="quick-actions-title" variant="h6" component="h2" sx={{ mb: 1.5 }}>
        Quick Actions
      </Typography>
      <Grid container spacing={2} component="nav" aria-label="Quick actions">
        {actions.map((action) => (
          <Grid key={action.to} size={{ xs: 12, sm: 6, md: columns }}>
            <Card sx={{ height: '100%' }}>
              <CardActionArea component={RouterLink} to={action.to} sx={{ height: '100%' }}>
                <CardContent sx={{ display: 'flex', gap: 2, alignItems: 'center', p: 2.5 }}>
                  <Box
                    aria-hidden
                    sx={{
                      display: 'grid',
                      placeItems: 'center',
                      width: 44,
                      height: 44,
                      borderRadius: 2,
                      bgcolor: 'action.selected',
                      color: 'primary.main',
                      flexShrink: 0,
                    }}
                  >
                    {ICONS[action.icon]}
                  </Box>
                  <Box sx={{ minWidth: 0 }}>
                    <Typography sx={{ fontWeight: 600 }}>{action.label}</Typography>
                    <Typography variant="body2" color="text.secondary">
                      {action.description}
                    </Typography>
                  </Box>
                </CardContent>
              </CardActionArea>
            </Card>
          </Grid>
        ))}
      </Grid>
    </Box>
  );
}
