import LinkOffIcon from '@mui/icons-material/LinkOff';
import RefreshIcon from '@mui/icons-material/Refresh';
import VerifiedUserIcon from '@mui/icons-material/VerifiedUser';
import { Alert, Box, Button, Card, CardContent, Chip, Stack, Typography } from '@mui/material';
import { useState } from 'react';
import { errorMessage } from '../../api/api-error.ts';
import {
  useCheckSslMutation,
  useRemoveDomainMutation,
  useRequestSslMutation,
  useVerifyDomainMutation,
} from '../../api/instance-domains.queries.ts';
import type { CustomDomain, Instance } from '../../api/instances.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';
import { formatDateTime } from '../subscription/standing.ts';
import { CredentialField } from './credential-field.tsx';
import { DomainForm } from './domain-management.tsx';
import { SslBadge } from './domain-status.tsx';
import { isDeployed } from './instance-actions.tsx';
import {
  DOMAIN_ADD_DISABLED,
  DOMAIN_REMOVE_DISABLED,
  PENDING_ACTIVATION,
  SSL_REQUEST_DISABLED,
  VERIFICATION_LABELS,
  verificationColor,
} from './instance-catalog.ts';
import { FeatureUnavailable, unavailableReason } from './instance-features.tsx';
import { WithReason } from './with-reason.tsx';

/**
 * A custom domain that is not attached yet: its state, the spec's pending text, the TXT record to add
 * (Type, Name, Value, each with a copy button), what the last lookup found, and 'Verify now'.
 */
function DomainVerificationPanel({ instanceId, custom }: { instanceId: string; custom: CustomDomain }) {
  const toast = useToast();
  const verify = useVerifyDomainMutation(instanceId);
  const { verification } = custom;

  const verifyNow = () =>
    verify.mutate(undefined, {
      onSuccess: ({ instance, message }) =>
        instance.customDomain?.verification.status === 'attached'
          ? toast.success(message || 'Domain verified and attached')
          : toast.info(message || PENDING_ACTIVATION),
      onError: (error) => toast.error(errorMessage(error, 'Failed to verify domain')),
    });

  return (
    <Box component="section" aria-label="Domain verification" sx={{ mt: 1.5 }}>
      <Alert
        severity={verification.status === 'failed' ? 'error' : 'info'}
        variant="outlined"
        action={
          <Chip
            size="small"
            color={verificationColor(verification.status)}
            label={VERIFICATION_LABELS[verification.status]}
          />
        }
      >
        {PENDING_ACTIVATION}.{' '}
        {verification.status === 'verified'
          ? 'Ownership is verified; the domain is attached as soon as the site runs.'
          : 'Add this TXT record at your DNS provider to prove the domain is yours, then press Verify now. It is also checked in the background.'}
      </Alert>
      {verification.status !== 'verified' && (
        <Box component="dl" aria-label="TXT record" sx={{ my: 1 }}>
          <CredentialField label="Type" value={verification.record.type} />
          <CredentialField label="Name" value={verification.record.name} />
          <CredentialField label="Value" value={verification.record.value} />
        </Box>
      )}
      {(verification.message || verification.lastChecked) && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {verification.message ?? ''}
          {verification.lastChecked
            ? `${verification.message ? ' · ' : ''}checked ${formatDateTime(new Date(verification.lastChecked))}`
            : ''}
        </Typography>
      )}
      <Button
        variant="outlined"
        startIcon={<VerifiedUserIcon />}
        loading={verify.isPending}
        onClick={verifyNow}
      >
        Verify now
      </Button>
    </Box>
  );
}

/**
 * Custom Domain: the domain with its SSL badge, added date and
 * last check; Add/Update Custom Domain, Check SSL Status, Remove (after the remove modal). An inactive
 * subscription disables adding and removing. Where this server offers no custom domains for the type,
 * the card says why instead.
 */
export function CustomDomainCard(props: {
  instance: Instance;
  inactive: boolean;
  editing: boolean;
  onEditingChange(editing: boolean): void;
}) {
  const notOffered = unavailableReason(props.instance, 'domains');
  if (!notOffered) return <OfferedDomainCard {...props} />;
  return (
    <Card component="section" aria-labelledby="custom-domain-title" id="custom-domain">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id="custom-domain-title" variant="h6" component="h2" sx={{ mb: 1.5 }}>
          Custom Domain
        </Typography>
        <FeatureUnavailable reason={notOffered} />
      </CardContent>
    </Card>
  );
}

function OfferedDomainCard({
  instance,
  inactive,
  editing,
  onEditingChange,
}: {
  instance: Instance;
  inactive: boolean;
  editing: boolean;
  onEditingChange(editing: boolean): void;
}) {
  const toast = useToast();
  const remove = useRemoveDomainMutation(instance.id);
  const check = useCheckSslMutation(instance.id);
  const [removing, setRemoving] = useState(false);
  const custom = instance.customDomain;
  const notRunning = isDeployed(instance) ? null : 'Available once the instance is running';

  const removeDomain = () =>
    remove.mutate(undefined, {
      onSuccess: ({ message }) => toast.success(message || 'Custom domain removed successfully'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to remove custom domain')),
      onSettled: () => setRemoving(false),
    });

  const checkSsl = () =>
    check.mutate(undefined, {
      onSuccess: () => toast.success('SSL status updated'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to check SSL status')),
    });

  return (
    <Card component="section" aria-labelledby="custom-domain-title" id="custom-domain">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Stack direction="row" sx={{ alignItems: 'center', gap: 1, mb: 1.5 }}>
          <Typography id="custom-domain-title" variant="h6" component="h2" sx={{ mr: 'auto' }}>
            Custom Domain
          </Typography>
          <SslBadge instance={instance} />
        </Stack>
        {custom ? (
          <Box sx={{ mb: 2 }}>
            <Typography sx={{ fontWeight: 600, wordBreak: 'break-all' }}>{custom.domain}</Typography>
            {custom.addedAt && (
              <Typography variant="body2" color="text.secondary">
                Added {formatDateTime(new Date(custom.addedAt))}
              </Typography>
            )}
            {custom.verification.status === 'attached' ? (
              <Typography variant="body2" color="text.secondary">
                {custom.ssl.message}
                {custom.ssl.lastChecked
                  ? ` · checked ${formatDateTime(new Date(custom.ssl.lastChecked))}`
                  : ''}
              </Typography>
            ) : (
              <DomainVerificationPanel instanceId={instance.id} custom={custom} />
            )}
            {custom.verification.status === 'attached' && custom.ssl.status === 'Pending' && (
              <Alert severity="info" variant="outlined" sx={{ mt: 1.5 }}>
                The domain is pending activation until its DNS points at this platform: an A record (or ALIAS)
                for an apex domain, a CNAME for a subdomain.
              </Alert>
            )}
          </Box>
        ) : (
          <Typography color="text.secondary" sx={{ mb: 2 }}>
            No custom domain. The site answers on its temporary URL.
          </Typography>
        )}
        {editing ? (
          <DomainForm instance={instance} onDone={() => onEditingChange(false)} disabled={inactive} />
        ) : (
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <WithReason reason={inactive ? DOMAIN_ADD_DISABLED : notRunning}>
              <Button
                variant="contained"
                disabled={inactive || notRunning !== null}
                onClick={() => onEditingChange(true)}
              >
                {custom ? 'Update Custom Domain' : 'Add Custom Domain'}
              </Button>
            </WithReason>
            {custom?.verification.status === 'attached' && (
              <Button startIcon={<RefreshIcon />} loading={check.isPending} onClick={checkSsl}>
                Check SSL Status
              </Button>
            )}
            {custom && (
              <WithReason reason={inactive ? DOMAIN_REMOVE_DISABLED : null}>
                <Button
                  color="error"
                  startIcon={<LinkOffIcon />}
                  disabled={inactive}
                  onClick={() => setRemoving(true)}
                >
                  Remove
                </Button>
              </WithReason>
            )}
          </Stack>
        )}
      </CardContent>
      <ConfirmDialog
        open={removing}
        title="Remove custom domain?"
        text={
          custom?.verification.status === 'attached'
            ? `${custom.domain} is detached and the site answers on its temporary URL again.`
            : `${custom?.domain ?? 'The domain'} is no longer waiting for verification; its TXT record can be deleted.`
        }
        confirmLabel="Remove Domain"
        destructive
        pending={remove.isPending}
        onConfirm={removeDomain}
        onClose={() => setRemoving(false)}
      />
    </Card>
  );
}

/**
 * SSL Certificate, only while the certificate FAILED: the server's message, Request SSL,
 * and Re-issue Certificate after the re-issue modal. Inactive subscriptions cannot request SSL.
 */
export function SslCertificateCard({ instance, inactive }: { instance: Instance; inactive: boolean }) {
  const toast = useToast();
  const request = useRequestSslMutation(instance.id);
  const [reissuing, setReissuing] = useState(false);
  const ssl = instance.customDomain?.ssl;
  if (ssl?.status !== 'FAILED') return null;

  const requestSsl = () =>
    request.mutate(undefined, {
      onSuccess: ({ message }) =>
        toast.success(message || 'Requested SSL. It may take a moment to activate.'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to request SSL')),
    });

  const reissue = () =>
    request.mutate(undefined, {
      onSuccess: () => toast.success('SSL certificate management initiated'),
      onError: (error) => toast.error(errorMessage(error, 'Failed to manage SSL certificate')),
      onSettled: () => setReissuing(false),
    });

  return (
    <Card component="section" aria-labelledby="ssl-certificate-title">
      <CardContent sx={{ p: 3, '&:last-child': { pb: 3 } }}>
        <Typography id="ssl-certificate-title" variant="h6" component="h2" sx={{ mb: 1.5 }}>
          SSL Certificate
        </Typography>
        <Alert severity="error" sx={{ mb: 2 }}>
          {ssl.message || 'The certificate could not be issued.'}
        </Alert>
        <WithReason reason={inactive ? SSL_REQUEST_DISABLED : null}>
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
            <Button
              variant="contained"
              disabled={inactive}
              loading={request.isPending && !reissuing}
              onClick={requestSsl}
            >
              Request SSL
            </Button>
            <Button disabled={inactive} onClick={() => setReissuing(true)}>
              Re-issue Certificate
            </Button>
          </Stack>
        </WithReason>
      </CardContent>
      <ConfirmDialog
        open={reissuing}
        title="Re-issue SSL certificate?"
        text={`The certificate of ${instance.customDomain?.domain ?? 'the domain'} is discarded and a new one is requested. HTTPS may be unavailable for a moment.`}
        confirmLabel="Re-issue"
        pending={request.isPending}
        onConfirm={reissue}
        onClose={() => setReissuing(false)}
      />
    </Card>
  );
}
