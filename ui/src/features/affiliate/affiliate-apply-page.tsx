import { Alert, Card, CardContent, Container, Link, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { Navigate, Link as RouterLink, useNavigate } from 'react-router';
import { useAffiliateRegisterMutation } from '../../api/affiliates.queries.ts';
import { ApiRequestError, errorMessage } from '../../api/api-error.ts';
import { useToast } from '../../components/toasts/use-toast.ts';
import { useCurrentUser } from '../session/use-session.ts';
import { AffiliateApplyForm } from './affiliate-apply-form.tsx';

/** The redirect after joining. */
const REDIRECT_MS = 2000;

/** The server's messages of a failed join: field messages joined by lines, else its message. */
function joinFailure(error: unknown): string {
  if (!(error instanceof ApiRequestError)) return 'An error occurred. Please try again.';
  const fields = error.body?.details?.fieldErrors;
  if (fields && typeof fields === 'object') {
    const lines = Object.values(fields as Record<string, unknown>).flatMap((m) =>
      Array.isArray(m) ? m : [m],
    );
    if (lines.length > 0) return lines.join('\n');
  }
  return errorMessage(error, 'Failed to register as affiliate');
}

/**
 * Affiliate apply: a signed-in user joins with a PayPal or bank payout; processing,
 * a welcome, then the dashboard after 2 seconds. Affiliates already are sent to the dashboard.
 */
export function AffiliateApplyPage() {
  const user = useCurrentUser();
  const toast = useToast();
  const navigate = useNavigate();
  const join = useAffiliateRegisterMutation();
  const [joined, setJoined] = useState(false);

  useEffect(() => {
    if (!joined) return;
    const timer = setTimeout(() => navigate('/affiliate/dashboard', { replace: true }), REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [joined, navigate]);

  // An affiliate arriving here goes to the dashboard; the profile this page's own join refreshes does not
  // skip the welcome.
  if (user.affiliateStatus === 'active' && join.isIdle && !joined)
    return <Navigate to="/affiliate/dashboard" replace />;

  if (joined) {
    return (
      <Container maxWidth="sm" sx={{ py: 8 }}>
        <Alert severity="success" role="status">
          <Typography variant="h6" component="h1">
            Welcome to the Affiliate Program!
          </Typography>
          Taking you to your{' '}
          <Link component={RouterLink} to="/affiliate/dashboard">
            affiliate dashboard
          </Link>
          …
        </Alert>
      </Container>
    );
  }

  return (
    <Container maxWidth="sm" sx={{ py: { xs: 4, md: 6 } }}>
      <Typography variant="h4" component="h1" sx={{ mb: 1 }}>
        Become an Affiliate
      </Typography>
      <Typography color="text.secondary" sx={{ mb: 3 }}>
        Earn 20% of the first subscription payment of every customer you refer. Already an affiliate?{' '}
        <Link component={RouterLink} to="/affiliate/dashboard">
          Go to your dashboard
        </Link>
      </Typography>
      <Card>
        <CardContent sx={{ p: 3 }}>
          <AffiliateApplyForm
            user={user}
            pending={join.isPending}
            onJoin={(body) =>
              join.mutate(
                { body },
                {
                  onSuccess: () => setJoined(true),
                  onError: (error) => toast.error(joinFailure(error)),
                },
              )
            }
          />
        </CardContent>
      </Card>
    </Container>
  );
}
