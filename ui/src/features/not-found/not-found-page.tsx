import ArrowBackIcon from '@mui/icons-material/ArrowBack';
import HomeIcon from '@mui/icons-material/Home';
import { Box, Button, Container, Link, Stack, Typography } from '@mui/material';
import { useEffect } from 'react';
import { Link as RouterLink, useLocation, useNavigate } from 'react-router';
import type { AppLink } from '../../components/nav-link.ts';
import { useCountdown } from './use-countdown.ts';

const NOT_FOUND_REDIRECT_SECONDS = 10;

export interface NotFoundPageProps {
  /** Where the countdown and the home button lead. */
  home: AppLink;
  quickLinks: readonly AppLink[];
}

export function NotFoundPage({ home, quickLinks }: NotFoundPageProps) {
  const navigate = useNavigate();
  const location = useLocation();
  const left = useCountdown(NOT_FOUND_REDIRECT_SECONDS);
  // react-router keys the first entry of a session 'default': nothing in the app to go back to.
  const canGoBack = location.key !== 'default';

  useEffect(() => {
    if (left === 0) navigate(home.to, { replace: true });
  }, [left, home.to, navigate]);

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 6, sm: 10 }, textAlign: 'center' }}>
      <Typography
        variant="h1"
        component="p"
        aria-hidden
        sx={{ fontSize: { xs: 72, sm: 96 }, lineHeight: 1, color: 'primary.main', mb: 2 }}
      >
        404
      </Typography>
      <Typography variant="h4" component="h1" gutterBottom>
        Page Not Found
      </Typography>
      <Typography color="text.secondary">
        The page you are looking for does not exist or has moved.
      </Typography>
      <Typography color="text.secondary" role="timer" aria-live="off" sx={{ mt: 1 }}>
        Redirecting in {left} {left === 1 ? 'second' : 'seconds'}...
      </Typography>
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ justifyContent: 'center', mt: 4 }}>
        <Button
          variant="outlined"
          startIcon={<ArrowBackIcon />}
          onClick={() => (canGoBack ? navigate(-1) : navigate(home.to))}
        >
          Go Back
        </Button>
        <Button variant="contained" startIcon={<HomeIcon />} component={RouterLink} to={home.to}>
          {home.label}
        </Button>
      </Stack>
      {quickLinks.length > 0 && (
        <Box component="nav" aria-label="Quick links" sx={{ mt: 5 }}>
          <Typography variant="overline" color="text.secondary">
            Quick links
          </Typography>
          <Stack direction="row" spacing={3} sx={{ justifyContent: 'center', flexWrap: 'wrap' }}>
            {quickLinks.map((link) => (
              <Link key={link.to} component={RouterLink} to={link.to} underline="hover">
                {link.label}
              </Link>
            ))}
          </Stack>
        </Box>
      )}
    </Container>
  );
}
