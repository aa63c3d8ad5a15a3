import { LAST_UPDATED, type LegalDocument } from './legal-document.ts';

export const GDPR: LegalDocument = {
  title: 'GDPR',
  updated: LAST_UPDATED,
  intro:
    'The EU General Data Protection Regulation (GDPR) gives you control over your personal data. This page explains how Berth applies it: our roles, your rights and how to use them. Our Privacy Policy lists the data we process and why.',
  sections: [
    {
      heading: '1. Our two roles',
      blocks: [
        {
          list: [
            'Controller: for your account, subscription, support messages and the technical data of your visits, Berth decides why and how the data is processed.',
            'Processor: for the personal data you store in your instances (for example the users of your WordPress site or the records in your database), you are the controller and Berth processes that data only on your instructions, to host it. A data processing agreement is available on request.',
          ],
        },
      ],
    },
    {
      heading: '2. Legal bases',
      blocks: [
        {
          list: [
            'Contract: running your account, instances, billing and support.',
            'Legitimate interests: security, the bot check, rate limits and fraud prevention.',
            'Legal obligation: accounting and tax records.',
            'Consent: anything optional, such as marketing e-mail, which you may withdraw at any time.',
          ],
        },
      ],
    },
    {
      heading: '3. Your rights',
      blocks: [
        {
          list: [
            'Access: get a copy of the personal data we hold about you.',
            'Rectification: correct inaccurate data. Your name, username and picture can be changed directly on your Profile page.',
            'Erasure: have your account and data deleted, except records we must keep by law.',
            'Restriction: ask us to limit processing while a dispute about your data is resolved.',
            'Portability: receive the data you gave us in a structured, machine-readable format.',
            'Objection: object to processing based on our legitimate interests.',
            'Withdrawal of consent: at any time, without affecting earlier processing.',
          ],
        },
        'Berth makes no decisions about you based solely on automated processing that have legal or similarly significant effects. The bot check is a security measure; if it blocks you, contact us and a person will look at it.',
      ],
    },
    {
      heading: '4. How to make a request',
      blocks: [
        'Send your request through the contact form of our Help Center, from the e-mail address of your account if you have one, and choose the category "General question". We may ask you to confirm your identity. We answer within one month; for complex requests this can be extended by two further months, in which case we tell you why.',
      ],
    },
    {
      heading: '5. Transfers outside the EEA',
      blocks: [
        'You choose the region of each instance. Where personal data is transferred outside the European Economic Area, we rely on an adequacy decision or the European Commission’s Standard Contractual Clauses.',
      ],
    },
    {
      heading: '6. Data breaches',
      blocks: [
        'If a breach puts personal data at risk, we notify the competent supervisory authority within 72 hours of becoming aware of it and inform the people affected without undue delay when the risk to them is high. For data in your instances, we inform you so that you can meet your own obligations.',
      ],
    },
    {
      heading: '7. Complaints',
      blocks: [
        'You have the right to lodge a complaint with the data protection authority of the EU or EEA country where you live or work, or where you believe your rights were infringed. We would appreciate the chance to address your concern first.',
      ],
    },
  ],
};
