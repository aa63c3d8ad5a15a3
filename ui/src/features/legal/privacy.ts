import { LAST_UPDATED, type LegalDocument } from './legal-document.ts';

export const PRIVACY_POLICY: LegalDocument = {
  title: 'Privacy Policy',
  updated: LAST_UPDATED,
  intro:
    'This policy explains which personal data Berth processes when you visit our site, create an account, run instances or contact support, why we do so, and the choices you have. Berth is the controller of this data.',
  sections: [
    {
      heading: '1. Data we collect',
      blocks: [
        {
          list: [
            'Account data: first and last name, username, e-mail address, account type (individual or company), company name for company accounts, and your password, which we store only as a salted hash.',
            'Profile picture, if you upload one (PNG, JPG, GIF or WEBP, up to 2 MB). You can remove it at any time from your Profile page.',
            'Subscription data: plan, trial start and end, billing cycle, invoices and payment status. Card and account details are entered with our payment providers; we never receive full card numbers.',
            'Service data: the instances you deploy (name, description, type, region, domains), their credentials and backups, and the content you store in them.',
            'Messages: what you send through the contact form or the support desk (name, e-mail address, category, subject, message and the page you wrote from), and the in-app notifications we send you.',
            'Technical data: IP address, browser type and request logs, used to keep the platform secure, to limit repeated sign-in attempts and for the bot check on our forms.',
            'Referral data: if you arrived through an affiliate link, the referral code, so that the affiliate can be credited when you subscribe.',
          ],
        },
      ],
    },
    {
      heading: '2. Why we use it',
      blocks: [
        {
          list: [
            'To provide the service you signed up for: your account, instances, billing and support (performance of our contract with you).',
            'To protect Berth and its users: bot checks, rate limits, abuse and fraud prevention (our legitimate interest in a secure service).',
            'To keep accounting and tax records (legal obligation).',
            'To send service messages such as password-reset links, trial reminders and security notices. We do not send marketing e-mail without your consent.',
          ],
        },
      ],
    },
    {
      heading: '3. Bot protection',
      blocks: [
        'The sign-in, registration, password-reset and contact forms use Cloudflare Turnstile to tell people from automated abuse. Turnstile processes your IP address and signals from your browser on Cloudflare’s servers; Cloudflare’s own privacy policy applies to that processing.',
      ],
    },
    {
      heading: '4. Who receives data',
      blocks: [
        'We share personal data only with providers that help us run Berth, under contracts that limit their use of it: the infrastructure providers that run instances in the region you choose, our e-mail delivery provider, our payment providers (Stripe, PayPal, and the public blockchain for wallet payments) and Cloudflare for the bot check. We disclose data to authorities only when the law requires it. We never sell personal data.',
      ],
    },
    {
      heading: '5. International transfers',
      blocks: [
        'Your instances run in the region you choose, for example in the United States, the European Union or Asia. Account data may be processed in other countries than yours. When data leaves the European Economic Area we rely on an adequacy decision or the European Commission’s Standard Contractual Clauses.',
      ],
    },
    {
      heading: '6. How long we keep it',
      blocks: [
        {
          list: [
            'Account, subscription and service data: for as long as your account exists. When you close your account, we delete your instances and your account data, except what we must keep by law.',
            'Invoices and other financial records: as long as accounting and tax law requires, up to 7 years.',
            'Password-reset links: they expire after 1 hour and work once; we store them only in hashed form.',
            'Support and contact messages: as long as needed to answer them and follow up on your request.',
          ],
        },
      ],
    },
    {
      heading: '7. Your rights',
      blocks: [
        'You can access, correct and delete your data, restrict or object to its processing, and receive it in a portable format. You can correct your name, username and picture yourself on your Profile page. Our GDPR page explains each right and how to use it. You may also complain to the data protection authority of your country.',
      ],
    },
    {
      heading: '8. Security',
      blocks: [
        'Passwords are hashed, connections to Berth are encrypted, sign-in tokens expire, and access to customer data within Berth is limited to the people who need it to run the service.',
      ],
    },
    {
      heading: '9. Children',
      blocks: [
        'Berth is not intended for children. We do not knowingly serve or collect data from anyone under 13; if we learn that we have, we delete it.',
      ],
    },
    {
      heading: '10. Changes',
      blocks: [
        'When we change this policy we update the date at the top, and we announce material changes in the app.',
      ],
    },
  ],
};

export const COOKIE_POLICY: LegalDocument = {
  title: 'Cookie Policy',
  updated: LAST_UPDATED,
  intro:
    'Berth uses no advertising cookies and no third-party analytics. It stores a few items in your browser that the app needs to work, and our bot check may store technical data of its own. This page lists them.',
  sections: [
    {
      heading: '1. What Berth stores in your browser',
      blocks: [
        'Berth keeps these items in your browser’s local storage, on your device only:',
        {
          list: [
            'token: keeps you signed in. It is removed when you log out, and it stops working when it expires.',
            'theme: your choice of light or dark mode.',
            'referral_code: the affiliate code of the link that brought you to Berth, so the affiliate can be credited if you register (30 days, last click wins).',
            'Your choice of list or grid view for your instances.',
          ],
        },
        'These items are strictly necessary for the features you use, so they need no consent. They are never sent to advertisers.',
      ],
    },
    {
      heading: '2. Third parties',
      blocks: [
        'Cloudflare Turnstile, which protects our sign-in, registration, password-reset and contact forms, may set cookies or store data needed to tell a person from a bot. When you pay, our payment providers (Stripe, PayPal) set their own cookies on their pages; their cookie policies apply there.',
      ],
    },
    {
      heading: '3. Your choices',
      blocks: [
        'You can delete everything Berth stores by clearing this site’s data in your browser settings. You will then be signed out and your theme choice will be reset. Blocking this storage altogether prevents signing in.',
      ],
    },
  ],
};
