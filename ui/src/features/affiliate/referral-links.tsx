import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import { Button, Card, CardContent, InputAdornment, Stack, TextField, Typography } from '@mui/material';
import { useEffect, useState } from 'react';
import { type AffiliateDashboard, useGenerateCodeMutation } from '../../api/affiliates.queries.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { useToast } from '../../components/toasts/use-toast.ts';

/** The 'Copied' state of a copy button lasts 2 seconds. */
const COPIED_MS = 2000;
/** The browser's record of the code and link. */
const LINK_STORAGE_KEY = 'affiliate_referral';

function rememberLink(code: string, link: string) {
  try {
    localStorage.setItem(LINK_STORAGE_KEY, JSON.stringify({ referralCode: code, referralLink: link }));
  } catch {
    // Nothing depends on it.
  }
}

function CopyField({ label, value, copiedMessage }: { label: string; value: string; copiedMessage: string }) {
  const toast = useToast();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    if (!value) {
      toast.error('No referral link yet. Click "Generate Link" to create yours.');
      return;
    }
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      toast.success(copiedMessage);
    } catch {
      toast.error('Failed to copy to clipboard');
    }
  };
  return (
    <TextField
      label={label}
      value={value}
      fullWidth
      slotProps={{
        input: {
          readOnly: true,
          endAdornment: (
            <InputAdornment position="end">
              <Button
                size="small"
                startIcon={<ContentCopyIcon />}
                onClick={copy}
                aria-label={`Copy ${label.toLowerCase()}`}
              >
                {copied ? 'Copied' : 'Copy'}
              </Button>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/** Register and homepage links with copy buttons, the code, public name and number. */
export function ReferralLinks({ data }: { data: AffiliateDashboard }) {
  const generate = useGenerateCodeMutation();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    if (data.referralCode) rememberLink(data.referralCode, data.referralLink);
  }, [data.referralCode, data.referralLink]);

  const run = (force: boolean) =>
    generate.mutate(force, {
      onSuccess: (result) => {
        rememberLink(result.referralCode, result.referralLink);
        setConfirming(false);
        toast.success('Referral link generated');
      },
      onError: () => toast.error('Failed to generate referral link'),
    });

  return (
    <Card component="section" aria-labelledby="links-title">
      <CardContent sx={{ p: 3 }}>
        <Typography id="links-title" variant="h6" component="h2" sx={{ mb: 2 }}>
          Your Referral Links
        </Typography>
        <Stack spacing={2}>
          <CopyField label="Register link" value={data.referralLink} copiedMessage="Referral link copied!" />
          <CopyField
            label="Homepage link"
            value={data.homepageLink}
            copiedMessage="Homepage referral link copied!"
          />
          <Typography>
            Referral code: <strong data-testid="referral-code">{data.referralCode}</strong>
            {data.referralName && <> · Public name: {data.referralName}</>}
            {data.referralNumber && <> · Public number: {data.referralNumber}</>}
          </Typography>
          <Typography variant="body2" color="text.secondary">
            Visitors who follow your link and sign up within 30 days are yours (the last link clicked wins).
            You earn 20% of their first subscription payment, available 30 days after it is paid.
          </Typography>
          <div>
            {data.referralCode ? (
              <Button variant="outlined" onClick={() => setConfirming(true)}>
                Generate New Link
              </Button>
            ) : (
              <Button variant="contained" onClick={() => run(false)} loading={generate.isPending}>
                Generate Link
              </Button>
            )}
          </div>
        </Stack>
      </CardContent>
      <ConfirmDialog
        open={confirming}
        title="Generate a new referral link?"
        text="Your current code and links stop working; visitors who already clicked them stay yours for 30 days."
        confirmLabel="Generate New Link"
        pending={generate.isPending}
        onConfirm={() => run(true)}
        onClose={() => setConfirming(false)}
      />
    </Card>
  );
}
