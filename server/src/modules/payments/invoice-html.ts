import { currencySymbol } from '../subscriptions/billing-rules.ts';

export interface InvoiceView {
  number: string;
  date: Date;
  status: string;
  amount: number;
  currency: string;
  description: string;
  provider: string;
  providerRef: string | null;
  billedTo: { name: string; company: string | null; email: string };
}

const PROVIDER_NAMES: Record<string, string> = {
  stripe: 'Card (Stripe)',
  paypal_business: 'PayPal Business',
  paypal_standard: 'PayPal',
  metamask: 'MetaMask',
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** A self-contained, printable HTML invoice (for payments whose provider hosts none). */
export function renderInvoiceHtml(v: InvoiceView): string {
  const money = `${currencySymbol(v.currency)}${v.amount.toFixed(2)} ${escapeHtml(v.currency)}`;
  const date = v.date.toISOString().slice(0, 10);
  const rows: [string, string][] = [
    ['Invoice', escapeHtml(v.number)],
    ['Date', date],
    ['Status', escapeHtml(v.status)],
    ['Payment method', escapeHtml(PROVIDER_NAMES[v.provider] ?? v.provider)],
  ];
  if (v.providerRef) rows.push(['Reference', escapeHtml(v.providerRef)]);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Berth invoice ${escapeHtml(v.number)}</title>
<style>
body{font-family:system-ui,sans-serif;color:#1c2430;max-width:720px;margin:40px auto;padding:0 24px}
h1{font-size:28px;margin:0 0 4px}table{width:100%;border-collapse:collapse;margin:24px 0}
td,th{text-align:left;padding:8px 0;border-bottom:1px solid #dde3ea}th{color:#56657a;font-weight:500;width:40%}
.total{font-size:20px;font-weight:600}@media print{body{margin:0}}
</style>
</head>
<body>
<h1>Berth</h1>
<p>Invoice for ${escapeHtml(v.billedTo.name)}${v.billedTo.company ? `, ${escapeHtml(v.billedTo.company)}` : ''} &lt;${escapeHtml(v.billedTo.email)}&gt;</p>
<table>${rows.map(([k, val]) => `<tr><th>${k}</th><td>${val}</td></tr>`).join('')}</table>
<table><tr><th>Description</th><th style="text-align:right">Amount</th></tr>
<tr><td>${escapeHtml(v.description)}</td><td style="text-align:right">${money}</td></tr>
<tr><td class="total">Total</td><td class="total" style="text-align:right">${money}</td></tr></table>
</body>
</html>
`;
}
