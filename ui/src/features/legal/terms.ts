import { LAST_UPDATED, type LegalDocument } from './legal-document.ts';

export const TERMS: LegalDocument = {
  title: 'Terms of Service',
  updated: LAST_UPDATED,
  intro:
    'These terms govern your use of Berth, the hosting platform where you deploy and run applications (such as WordPress sites) and databases. By creating an account or using Berth you accept them. If you register for a company, you confirm that you may bind that company to these terms.',
  sections: [
    {
      heading: '1. The service',
      blocks: [
        'Berth runs application instances and database instances of the types this installation offers: the landing page and the Deploy screen list them, and say which are not available yet. Depending on the instance and your plan, it includes a temporary URL, custom domains with SSL certificates, database credentials, SFTP access, and WordPress backups and add-ons.',
      ],
    },
    {
      heading: '2. Your account',
      blocks: [
        'You sign in with your e-mail address or username and a password. Keep your password and any API key secret: you are responsible for what is done with your account. Tell us at once if you think someone else has used it.',
        'The information you give us (name, username, e-mail address and, for company accounts, the company name) must be accurate and kept up to date from your Profile page.',
      ],
    },
    {
      heading: '3. Free trial',
      blocks: [
        'Every new account starts with a free trial of 60 minutes, with no credit card. One trial is available per person or company; creating accounts to obtain further trials is not allowed.',
        'When the trial ends without a paid plan, your instances are suspended as described in section 6.',
      ],
    },
    {
      heading: '4. Plans, prices and payment',
      blocks: [
        {
          list: [
            'Starter allows 1 active instance. Additional instances can be added to an active Starter plan for a monthly fee each.',
            'Pro allows unlimited instances. API access at up to 150 requests per minute will be part of Pro once the Berth API is offered; the Pricing page says whether it is.',
            'Plans are billed monthly or yearly, in advance. Yearly billing is discounted: 10 % on Starter and 30 % on Pro compared with twelve monthly payments.',
            'The current prices and currency are shown on the Pricing page and at checkout. A price change applies from your next billing period, and we announce it in the app beforehand.',
            'Payments are processed by our payment providers (card payments through Stripe, PayPal and, where offered, wallet payments through MetaMask, which our support team confirms manually).',
          ],
        },
        'A subscription renews at the end of each period until you cancel it. A cancelled subscription stays active until the end of the period already paid. Payments already made are not refunded for unused parts of a period, unless the law of your country requires it.',
      ],
    },
    {
      heading: '5. Changing plans',
      blocks: [
        'You can move from Starter to Pro at any time. Moving from Pro to Starter is possible once no more than 1 instance is in use, because Starter is limited to 1 instance; an additional-instance add-on ends with the move.',
      ],
    },
    {
      heading: '6. Suspension when a subscription lapses',
      blocks: [
        'If neither a trial nor a paid subscription is active, your instances are suspended: they stop serving traffic, and actions that change them (deleting instances, changing database passwords, creating, restoring or deleting backups, adding domains and requesting SSL certificates) are disabled until a plan is active again.',
      ],
    },
    {
      heading: '7. Acceptable use',
      blocks: [
        'You must not use Berth to:',
        {
          list: [
            'host or send unlawful content, malware, phishing pages or unsolicited bulk e-mail;',
            'infringe the intellectual property or privacy of others;',
            'attack, scan or disrupt other systems, or try to get around the limits of your plan;',
            'mine cryptocurrency or run workloads that harm the performance of the platform for other customers.',
          ],
        },
        'We may suspend an instance that breaks these rules, and will tell you why unless the law or the safety of others prevents it.',
      ],
    },
    {
      heading: '8. Your content and backups',
      blocks: [
        'You keep all rights to what you deploy and store on Berth. You allow us to host, copy and transmit it only as needed to run the service for you. When your instances hold personal data of other people, you are responsible for having a lawful basis for it; our GDPR page explains our role as your processor.',
        'WordPress instances offer backups you can create and restore. They are a convenience, not a guarantee: keep your own copies of important data.',
      ],
    },
    {
      heading: '9. The Berth API',
      blocks: [
        'The Berth API is not offered yet. Once it is, API keys are personal to your account and must be kept secret, requests above the documented rate limits are refused, and we may revoke a key that is abused or exposed.',
      ],
    },
    {
      heading: '10. Availability and changes to the service',
      blocks: [
        'We work to keep Berth available and secure, but cannot promise uninterrupted service: maintenance, failures of providers and events outside our control can cause interruptions. We may improve or change features; when a change removes something you pay for, we will tell you in advance.',
      ],
    },
    {
      heading: '11. Ending the agreement',
      blocks: [
        'You may stop using Berth and close your account at any time. We may suspend or close an account that seriously or repeatedly breaks these terms. When an account is closed its instances are deleted; export anything you want to keep first.',
      ],
    },
    {
      heading: '12. Liability',
      blocks: [
        'Berth is provided as it is. To the extent the law allows, we are not liable for indirect or consequential loss, such as lost profits or lost data, and our total liability for any claim is limited to the amount you paid us in the 12 months before it arose. Nothing in these terms limits rights that consumer law gives you and that cannot be waived.',
      ],
    },
    {
      heading: '13. Changes to these terms',
      blocks: [
        'We may update these terms. We announce material changes in the app before they take effect and update the date at the top of this page. If you keep using Berth after a change takes effect, the new terms apply.',
      ],
    },
  ],
};
