import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import GroupIcon from '@mui/icons-material/Group';
import HandshakeIcon from '@mui/icons-material/Handshake';
import PaymentsIcon from '@mui/icons-material/Payments';
import { Box, Container, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useSearchParams } from 'react-router';
import { AdminUsers } from './admin-users.tsx';
import { AffiliatePayouts } from './affiliate-payouts.tsx';
import { MetaMaskReview } from './metamask-review.tsx';
import { PaymentSettingsForm } from './payment-settings-form.tsx';

const TABS = [
  { value: 'payments', label: 'Payments', Icon: PaymentsIcon },
  { value: 'users', label: 'Users', Icon: GroupIcon },
  { value: 'affiliates', label: 'Affiliates', Icon: HandshakeIcon },
] as const;
type TabValue = (typeof TABS)[number]['value'];

const tabOf = (value: string | null): TabValue =>
  value === 'users' || value === 'affiliates' ? value : 'payments';

function PaymentsTab() {
  return (
    <Stack spacing={4}>
      <Box>
        <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
          Payment settings
        </Typography>
        <PaymentSettingsForm />
      </Box>
      <MetaMaskReview />
    </Stack>
  );
}

/**
 * The Admin Panel, /admin-panel (spec platform-area "Admin panel"), for admins only (the route table
 * sends everyone else to /dashboard). Billing administration for now: payment settings, MetaMask
 * payments to review, and plans of users; the tab is kept in `?tab=`.
 */
export function AdminPanelPage() {
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('tab'));
  return (
    <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
      <Stack direction="row" sx={{ gap: 2, alignItems: 'center', mb: 3 }}>
        <Box
          aria-hidden
          sx={{
            display: { xs: 'none', sm: 'flex' },
            alignItems: 'center',
            justifyContent: 'center',
            width: 48,
            height: 48,
            borderRadius: 2,
            bgcolor: 'primary.main',
            color: 'primary.contrastText',
          }}
        >
          <AdminPanelSettingsIcon />
        </Box>
        <Box>
          <Typography variant="h4" component="h1">
            Admin Panel
          </Typography>
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Billing administration: payment methods, prices, MetaMask payments, the plans of users and
            affiliate payouts.
          </Typography>
        </Box>
      </Stack>
      <Tabs
        value={tab}
        onChange={(_event, value: TabValue) =>
          setParams(value === 'payments' ? {} : { tab: value }, { replace: true })
        }
        aria-label="Admin Panel sections"
        sx={{ mb: 3, borderBottom: 1, borderColor: 'divider' }}
      >
        {TABS.map(({ value, label, Icon }) => (
          <Tab
            key={value}
            value={value}
            label={label}
            icon={<Icon fontSize="small" />}
            iconPosition="start"
            id={`admin-tab-${value}`}
            aria-controls={`admin-panel-${value}`}
            sx={{ minHeight: 48 }}
          />
        ))}
      </Tabs>
      <Box role="tabpanel" id={`admin-panel-${tab}`} aria-labelledby={`admin-tab-${tab}`}>
        {tab === 'payments' && <PaymentsTab />}
        {tab === 'users' && <AdminUsers />}
        {tab === 'affiliates' && <AffiliatePayouts />}
      </Box>
    </Container>
  );
}
