import type { Db } from '../../db/database.ts';
import { NotFoundError } from '../../lib/errors.ts';
import type { TokenService } from '../../lib/tokens.ts';
import { renderInvoiceHtml } from './invoice-html.ts';
import { findInvoiceWithBuyer, listInvoices } from './payments.ledger.ts';
import type { BillingHistory } from './payments.schemas.ts';
import { returnUrls } from './provider-contract.ts';

const INVOICE_LINK_TTL_SECONDS = 60 * 60;

interface InvoicesDeps {
  db: Db;
  tokens: Pick<TokenService, 'signLink' | 'verifyLink'>;
  publicUrl: string;
}

/**
 * A user's invoices: the billing history, each with its download link (the provider's own, or a signed
 * link to the HTML invoice Berth renders, valid for an hour), and that HTML invoice.
 */
export function createInvoicesService({ db, tokens, publicUrl }: InvoicesDeps) {
  const origin = returnUrls(publicUrl).publicUrl;
  return {
    async billingHistory(userId: string): Promise<BillingHistory> {
      const rows = await listInvoices(db, userId, 200);
      const invoices = await Promise.all(
        rows.map(async (r) => ({
          id: r.id,
          amount: Number(r.amount),
          currency: r.currency,
          description: r.description,
          date: r.date.toISOString(),
          status: r.status,
          refundedAmount: Number(r.refunded_amount),
          provider: r.provider,
          downloadUrl:
            r.download_url ??
            `${origin}/api/payments/invoices/${r.id}/download?token=${await tokens.signLink(r.id, 'invoice', INVOICE_LINK_TTL_SECONDS)}`,
        })),
      );
      return { invoices };
    },

    /** The HTML invoice a signed download link opens. */
    async invoiceHtml(invoiceId: string, token: string): Promise<string> {
      const subject = await tokens.verifyLink(token, 'invoice');
      if (subject !== invoiceId) throw new NotFoundError('Invoice not found');
      const row = await findInvoiceWithBuyer(db, invoiceId);
      if (!row) throw new NotFoundError('Invoice not found');
      return renderInvoiceHtml({
        number: row.id.slice(0, 8).toUpperCase(),
        date: row.date,
        status: row.status,
        amount: Number(row.amount),
        currency: row.currency,
        description: row.description,
        provider: row.provider,
        providerRef: row.provider_ref,
        billedTo: {
          name: `${row.first_name} ${row.last_name}`,
          company: row.company_name,
          email: row.email,
        },
      });
    },
  };
}
