import { LAST_UPDATED, type LegalDocument } from './legal-document.ts';

export const AFFILIATE_TERMS: LegalDocument = {
  title: 'Affiliate Program Terms',
  updated: LAST_UPDATED,
  affiliate: true,
  intro:
    'These terms govern the Berth affiliate program, in which you earn a commission for referring new paying customers to Berth. They add to our Terms of Service, which also apply to your Berth account.',
  sections: [
    {
      heading: '1. Eligibility',
      blocks: [
        'You must be at least 18 years old, hold a Berth account and give us accurate contact and payout details. We may decline an application or end a participation that does not meet these terms.',
      ],
    },
    {
      heading: '2. Referral links and attribution',
      blocks: [
        'You receive a referral code and links that carry it. When a visitor arrives through one of your links, the code is stored in their browser for 30 days. Attribution is last-click: if the visitor later arrives through another affiliate’s link, that affiliate receives the credit. The code is attached to the account when the visitor registers within those 30 days.',
      ],
    },
    {
      heading: '3. Commission',
      blocks: [
        {
          list: [
            'You earn 20 % of the first paid subscription of each customer you refer, on the Starter or Pro plan: either their first monthly payment or their first annual payment.',
            'The commission is paid once per customer. There is no recurring commission: renewals, upgrades and additional instances earn nothing further.',
            'It is calculated on net revenue: the amount Berth actually receives, after taxes such as VAT, payment processing fees, refunds and chargebacks.',
          ],
        },
      ],
    },
    {
      heading: '4. Hold period and payment',
      blocks: [
        {
          list: [
            'Each commission is held for 30 days, to cover refunds and chargebacks, before it becomes payable.',
            'Payable commissions are paid monthly, typically within 30 days after the end of the month.',
            'You request a payout from your affiliate dashboard once your balance reaches the minimum payout amount shown there (50 US dollars unless the dashboard states otherwise). Approved payouts are processed within 3 to 5 business days.',
            'Payouts are made by PayPal, bank transfer or cryptocurrency, to the details you keep up to date in your affiliate settings. Fees charged by the payment network may be deducted, and you are responsible for the taxes due on your earnings.',
          ],
        },
        'A commission on a subscription that is refunded, charged back or found to be fraudulent is cancelled, or deducted from later payouts if it was already paid.',
      ],
    },
    {
      heading: '5. Promoting Berth fairly',
      blocks: [
        'You must not:',
        {
          list: [
            'refer yourself, your own additional accounts or accounts you control;',
            'send spam, use cookie stuffing, pop-unders or any method that sets your code without a real click;',
            'make misleading claims about Berth, its prices, the free trial or its features;',
            'bid on "Berth" or confusingly similar terms in paid search, or present yourself as Berth;',
            'offer cash or other rewards for sign-ups without our written approval.',
          ],
        },
        'Commissions earned in breach of these rules are forfeited.',
      ],
    },
    {
      heading: '6. Inactivity',
      blocks: [
        'An affiliate account with no referral activity for more than 12 months may be closed. We pay out any payable balance above the minimum payout amount before closing it.',
      ],
    },
    {
      heading: '7. Records',
      blocks: [
        'We keep the financial records of commissions and payouts for up to 7 years, and referral tracking data for up to 24 months, as described in the Affiliate Privacy Policy.',
      ],
    },
    {
      heading: '8. Changes and ending',
      blocks: [
        'We may change these terms or end the program; we announce changes in the affiliate dashboard at least 30 days before they take effect, and commissions already earned stay payable. You may leave the program at any time. You act as an independent party: nothing in these terms makes you an employee, agent or partner of Berth.',
      ],
    },
  ],
};

export const AFFILIATE_PRIVACY: LegalDocument = {
  title: 'Affiliate Privacy Policy',
  updated: LAST_UPDATED,
  affiliate: true,
  intro:
    'This policy covers the personal data Berth processes to run its affiliate program, about affiliates and about the visitors they refer. Our general Privacy Policy applies to everything else.',
  sections: [
    {
      heading: '1. Data about affiliates',
      blocks: [
        {
          list: [
            'Identity and contact: full name, e-mail address and your Berth account.',
            'Program details: your referral code, the optional public name and number shown with your links, and your website or social profile.',
            'Payout details: your PayPal e-mail address, bank account name, number, bank, SWIFT and IBAN, or cryptocurrency wallet address and network, depending on the method you choose.',
            'Earnings: referrals, commissions, payout requests and their status, amounts, dates and transaction references.',
          ],
        },
      ],
    },
    {
      heading: '2. Data about referred visitors',
      blocks: [
        'When someone follows a referral link we record the click (referral code, time, page, and technical data such as IP address and browser type) and store the code in their browser for 30 days. If they register and subscribe, we record the conversion and the amount of their first payment. Affiliates see counts, earnings and statuses, never the name or e-mail address of the people they referred.',
      ],
    },
    {
      heading: '3. Why we use it',
      blocks: [
        'To run the program under our agreement with you: attributing referrals, calculating commissions, paying you, and preventing fraud such as self-referrals. We also keep financial records because accounting and tax law requires it.',
      ],
    },
    {
      heading: '4. How long we keep it',
      blocks: [
        {
          list: [
            'Financial records of commissions and payouts: up to 7 years.',
            'Referral tracking data (clicks and conversions): up to 24 months.',
            'Profile and payout details: while you take part in the program, then deleted except what the records above require.',
          ],
        },
      ],
    },
    {
      heading: '5. Who receives it',
      blocks: [
        'The provider that carries out each payout (PayPal, your bank, or the blockchain network for cryptocurrency payouts, where transactions are public by nature) and the infrastructure providers that run Berth. We never sell affiliate or visitor data.',
      ],
    },
    {
      heading: '6. Age',
      blocks: [
        'Affiliates must be at least 18 years old. Berth does not serve children under 13 and does not knowingly collect their data.',
      ],
    },
    {
      heading: '7. Your rights',
      blocks: [
        'You have the rights described on our GDPR page: access, rectification, erasure, restriction, portability and objection. You can correct your payout details yourself in your affiliate settings. Some data cannot be erased before the end of its legal retention period.',
      ],
    },
  ],
};
