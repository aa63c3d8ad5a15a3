import AdminPanelSettingsIcon from '@mui/icons-material/AdminPanelSettings';
import CampaignIcon from '@mui/icons-material/Campaign';
import DnsIcon from '@mui/icons-material/Dns';
import GroupIcon from '@mui/icons-material/Group';
import HandshakeIcon from '@mui/icons-material/Handshake';
import PaymentsIcon from '@mui/icons-material/Payments';
import SupportAgentIcon from '@mui/icons-material/SupportAgent';
import { Box, Container, Stack, Tab, Tabs, Typography } from '@mui/material';
import { useSearchParams } from 'react-router';
import { IconHeading } from '../../components/icon-heading.tsx';
import { HELP_DESK_TOASTS, ToastTimingsProvider } from '../../components/toasts/toast-timings.tsx';
import { AdminCapabilities } from './admin-capabilities.tsx';
import { AdminCapacity } from './admin-capacity.tsx';
import { AdminHelpDesk } from './admin-help-desk.tsx';
import { AdminNotifications } from './admin-notifications.tsx';
import { AdminRegions } from './admin-regions.tsx';
import { AdminUsers } from './admin-users.tsx';
import { AffiliatePayouts } from './affiliate-payouts.tsx';
import { MetaMaskReview } from './metamask-review.tsx';
import { PaymentSettingsForm } from './payment-settings-form.tsx';

const TABS = [
  { value: 'help-desk', label: 'Help Desk', Icon: SupportAgentIcon },
  { value: 'notifications', label: 'Notifications', Icon: CampaignIcon },
  { value: 'users', label: 'Users', Icon: GroupIcon },
  { value: 'payments', label: 'Payments', Icon: PaymentsIcon },
  { value: 'affiliates', label: 'Affiliates', Icon: HandshakeIcon },
  { value: 'server', label: 'Server', Icon: DnsIcon },
] as const;
type TabValue = (typeof TABS)[number]['value'];
const DEFAULT_TAB: TabValue = 'help-desk';

const tabOf = (value: string | null): TabValue =>
  TABS.find((tab) => tab.value === value)?.value ?? DEFAULT_TAB;

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
 * sends everyone else to /dashboard): the Help Desk and Notifications tabs of the spec, then the plans
 * of users and the billing settings (payment methods, MetaMask payments to review); the tab is kept in
 * `?tab=`.
 */
export function AdminPanelPage() {
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get('tab'));
  return (
    // The admin screens' toast times (3 s success, 5 s errors).
    <ToastTimingsProvider timings={HELP_DESK_TOASTS}>
      <Container maxWidth="lg" sx={{ py: { xs: 3, sm: 5 } }}>
        <IconHeading
          icon={<AdminPanelSettingsIcon />}
          title="Admin Panel"
          subtitle="Answer support tickets, notify users, manage plans and billing, pay affiliates, and see what this server can deploy."
        />
        <Tabs
          value={tab}
          onChange={(_event, value: TabValue) =>
            setParams(value === DEFAULT_TAB ? {} : { tab: value }, { replace: true })
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
          {tab === 'help-desk' && <AdminHelpDesk />}
          {tab === 'notifications' && <AdminNotifications />}
          {tab === 'users' && <AdminUsers />}
          {tab === 'payments' && <PaymentsTab />}
          {tab === 'affiliates' && <AffiliatePayouts />}
          {tab === 'server' && (
            <Stack spacing={4}>
              <AdminCapacity />
              <AdminCapabilities />
              <AdminRegions />
            </Stack>
          )}
        </Box>
      </Container>
    </ToastTimingsProvider>
  );
}
