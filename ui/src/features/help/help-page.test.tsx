import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';

const SENT = {
  body: { success: true, message: "Message sent successfully! We'll get back to you within 24 hours." },
};

function renderHelp(api: FakeRoutes = {}) {
  return renderApp({ path: '/help', api });
}

async function fill(app: ReturnType<typeof renderHelp>, values: Partial<Record<string, string>>) {
  const form = await screen.findByRole('form', { name: 'Contact support' });
  for (const [label, value] of Object.entries(values)) {
    if (!value) continue;
    await app.user.click(within(form).getByLabelText(label));
    await app.user.paste(value);
  }
  return form;
}

const VALID = {
  Name: 'Ada Lovelace',
  Email: 'ada@example.com',
  Subject: 'Custom domain',
  Message: 'My CNAME is set but SSL stays pending.',
};

describe('help page (platform-area: help page)', () => {
  it('has the FAQ in three categories and the response times', async () => {
    renderHelp();
    expect(await screen.findByRole('heading', { level: 1, name: 'Help Center' })).toBeTruthy();
    const faq = screen.getByRole('region', { name: 'Frequently Asked Questions' });
    expect(
      within(faq)
        .getAllByRole('heading', { level: 3 })
        .map((h) => h.textContent),
    ).toEqual(['Getting Started', 'Billing & Plans', 'Technical']);
    const times = screen.getByRole('region', { name: 'Response Times' });
    expect(within(times).getByText('Starter').closest('div')?.textContent).toContain('24 hours');
    expect(within(times).getByText('Pro').closest('div')?.textContent).toContain('4 hours');
  });

  it('sends the message with its category and page, toasts and shows the sent state', async () => {
    const app = renderHelp({ 'POST /api/contact/submit': SENT });
    const form = await fill(app, VALID);
    await app.user.click(within(form).getByRole('combobox', { name: 'Category' }));
    await app.user.click(await screen.findByRole('option', { name: 'Technical problem' }));
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));

    expect(
      await screen.findByText("Message sent successfully! We'll get back to you within 24 hours."),
    ).toBeTruthy();
    expect(screen.getByText('Thank you, your message is on its way.')).toBeTruthy();
    expect(app.api.calls('POST /api/contact/submit')[0]?.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      subject: 'Custom domain',
      message: 'My CNAME is set but SSL stays pending.',
      category: 'technical',
      path: '/help',
    });

    await app.user.click(screen.getByRole('button', { name: 'Send another message' }));
    expect((await screen.findByLabelText('Name')).getAttribute('value')).toBe('');
  });

  it('checks the fields before sending', async () => {
    const app = renderHelp();
    const form = await fill(app, { Email: 'ada@example' });
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    for (const message of ['Name is required', 'Invalid email', 'Subject is required', 'Message is required'])
      expect(await within(form).findByText(message)).toBeTruthy();
    expect(app.api.calls('POST /api/contact/submit')).toHaveLength(0);
  });

  it('limits the message to 5000 characters and counts them', async () => {
    const app = renderHelp();
    const form = await fill(app, { ...VALID, Message: 'x'.repeat(5001) });
    expect(within(form).getByText('5001 / 5000')).toBeTruthy();
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    expect(await within(form).findByText('Message is too long')).toBeTruthy();
    expect(app.api.calls('POST /api/contact/submit')).toHaveLength(0);
  });

  it.each([
    [
      'the server message',
      { status: 429, body: apiError('Too many messages', 'rate_limited') },
      'Too many messages',
    ],
    ['the fallback', { status: 500, body: undefined }, 'Failed to send message. Please try again.'],
  ])('shows %s when sending fails, and keeps the form', async (_case, answer, message) => {
    const app = renderHelp({ 'POST /api/contact/submit': answer });
    const form = await fill(app, VALID);
    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    expect(await screen.findByText(message)).toBeTruthy();
    await waitFor(() =>
      expect(within(form).getByLabelText('Name').getAttribute('value')).toBe('Ada Lovelace'),
    );
  });
});
