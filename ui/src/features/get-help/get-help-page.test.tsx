import type { Schemas } from '@berth/openapi';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, makeNotification, notificationList, signedInApi } from '../../../test/fixtures.ts';
import { renderApp } from '../../../test/render-app.tsx';
import { linkParts } from './support-text.tsx';

type Ticket = Schemas['Ticket'];

const XSS = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

function makeTicket(overrides: Partial<Ticket> = {}): Ticket {
  const id = overrides.id ?? '0b5c8a1e-3b43-4c8e-9a57-0d4a8c1f2b10';
  return {
    _id: id,
    id,
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    category: 'technical',
    subject: 'My site is down',
    message: 'It says 502.',
    path: '/get-help',
    status: 'open',
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    plan: 'starter',
    dueAt: '2026-11-21T10:00:00.000Z',
    overdue: false,
    attachments: [],
    adminResponse: null,
    context: null,
    ...overrides,
  };
}

const toast = (text: string) => screen.findByText(text, { selector: '[role="alert"] *' });
/** An answer with no message of the server's: the screen's own text shows. */
const broken = { status: 500 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes a subject and a message into the support form and sends it. */
async function fillAndSend(app: ReturnType<typeof renderGetHelp>, form: HTMLElement) {
  await app.user.click(within(form).getByLabelText('Subject'));
  await app.user.paste('My site is down');
  await app.user.click(within(form).getByLabelText('Message'));
  await app.user.paste('It says 502.');
  await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
}

function renderGetHelp(api: FakeRoutes = {}, path = '/get-help') {
  return renderApp({ path, token: 'stored', api: { ...signedInApi(), ...api } });
}

describe('/get-help', () => {
  it('sends a message with the account’s name and e-mail, consent on, and shows the success screen', async () => {
    const app = renderGetHelp({
      'POST /api/help/submit': { status: 201, body: { item: makeTicket() } },
      'GET /api/help/my': { body: { items: [makeTicket()] } },
    });
    const form = await screen.findByRole('form', { name: 'Send a support message' });
    expect((within(form).getByLabelText('Name') as HTMLInputElement).value).toBe('Ada Lovelace');
    expect((within(form).getByLabelText('Email') as HTMLInputElement).style.filter).toBe('blur(5px)');
    await app.user.click(within(form).getByRole('button', { name: 'Show name and email' }));
    expect((within(form).getByLabelText('Email') as HTMLInputElement).style.filter).toBe('');
    expect(
      (
        within(form).getByRole('checkbox', {
          name: 'Share my plan and instance status with support',
        }) as HTMLInputElement
      ).checked,
    ).toBe(true);

    await app.user.click(within(form).getByRole('button', { name: 'Send Message' }));
    expect(await within(form).findByText('Subject is required')).toBeTruthy();
    await fillAndSend(app, form);

    expect(await screen.findByText('Your message was sent.')).toBeTruthy();
    expect(app.api.calls('POST /api/help/submit')[0]?.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      category: 'general',
      subject: 'My site is down',
      message: 'It says 502.',
      path: '/get-help',
      attachments: [],
      shareContext: true,
    });
    await app.user.click(screen.getByRole('button', { name: 'View my tickets' }));
    expect(await screen.findByRole('heading', { name: 'My site is down' })).toBeTruthy();
  }, 15_000);

  it("opens on 'my' from the notification link, with loading and empty texts", async () => {
    let answer: () => void = () => {};
    const app = renderGetHelp(
      {
        'GET /api/help/my': () =>
          new Promise((resolve) => {
            answer = () => resolve({ body: { items: [] } });
          }),
      },
      '/get-help?tab=my',
    );
    expect(await screen.findByText('Loading your tickets...')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'My Tickets' }).getAttribute('aria-selected')).toBe('true');
    answer();
    expect(await screen.findByText('No tickets yet.')).toBeTruthy();
    await app.user.click(screen.getByRole('tab', { name: 'Answered' }));
    expect(await screen.findByText('No answered tickets yet.')).toBeTruthy();
  });

  it('shows answers as text with safe links; a script in a ticket or an answer stays text', async () => {
    const answered = makeTicket({
      id: '1b5c8a1e-3b43-4c8e-9a57-0d4a8c1f2b10',
      subject: `Help ${XSS}`,
      message: XSS,
      status: 'closed',
      adminResponse: {
        text: `Fixed. See [the guide](https://example.com/guide) or [this](javascript:alert(1)) ${XSS}`,
        respondedAt: '2026-11-21T09:30:00.000Z',
        attachments: [],
      },
    });
    const open = makeTicket({ subject: 'Still waiting' });
    const app = renderGetHelp(
      { 'GET /api/help/my': { body: { items: [answered, open] } } },
      '/get-help?tab=answered',
    );
    const card = await screen.findByRole('article', { name: `Help ${XSS}` });
    expect(screen.queryByText('Still waiting')).toBeNull();
    // The answered tab shows 'answered' whatever the status.
    expect(within(card).getByText('answered')).toBeTruthy();
    const response = within(card).getByRole('region', { name: 'Support Response' });
    const link = within(response).getByRole('link', { name: 'the guide' });
    expect(link.getAttribute('href')).toBe('https://example.com/guide');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
    expect(within(response).queryByRole('link', { name: 'this' })).toBeNull();
    expect(within(response).getByText(/Answered /)).toBeTruthy();
    expect(card.querySelector('script')).toBeNull();
    expect(card.querySelector('img')).toBeNull();
    expect(card.textContent).toContain('<script>window.__pwned=1</script>');
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();

    await app.user.click(screen.getByRole('tab', { name: 'My Tickets' }));
    expect(await screen.findByRole('heading', { name: 'Still waiting' })).toBeTruthy();
  });

  it("switches an open page to 'my' when a helpdesk notification is opened from the bell", async () => {
    const reply = makeNotification({ type: 'helpdesk', title: 'Support answered your ticket' });
    const app = renderGetHelp({
      'GET /api/notifications': { body: notificationList([reply]) },
      'POST /api/notifications/mark-read': { body: { count: 1, unread: 0 } },
      'GET /api/help/my': { body: { items: [makeTicket()] } },
    });
    await screen.findByRole('form', { name: 'Send a support message' });
    await app.user.click(await screen.findByRole('button', { name: /^Notifications/ }));
    const panel = await screen.findByRole('dialog', { name: 'Notifications' });
    await app.user.click(await within(panel).findByText('Support answered your ticket'));
    expect(await screen.findByRole('heading', { name: 'My site is down' })).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'My Tickets' }).getAttribute('aria-selected')).toBe('true');
  }, 15_000);

  it('deletes a ticket after confirmation, and says so for 3 s (the support screens’ time; customer screens: 2 s)', async () => {
    const ticket = makeTicket();
    const app = renderGetHelp(
      {
        'GET /api/help/my': { body: { items: [ticket] } },
        [`DELETE /api/help/${ticket.id}`]: { body: { message: 'Ticket deleted' } },
      },
      '/get-help?tab=my',
    );
    await app.user.click(await screen.findByRole('button', { name: 'Delete ticket My site is down' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this ticket?' });
    app.api.on({ 'GET /api/help/my': { body: { items: [] } } });
    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('No tickets yet.')).toBeTruthy();
    expect(app.api.calls(`DELETE /api/help/${ticket.id}`)).toHaveLength(1);
    await toast('Ticket deleted');
    await sleep(2_500);
    expect(screen.getByText('Ticket deleted', { selector: '[role="alert"] *' })).toBeTruthy();
    await waitFor(
      () => expect(screen.queryByText('Ticket deleted', { selector: '[role="alert"] *' })).toBeNull(),
      { timeout: 2_000 },
    );
  }, 15_000);

  it('uploads each chosen image at once and deletes it when removed before sending', async () => {
    const file = { url: '/uploads/help/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png', name: 'shot.png' };
    const app = renderGetHelp({
      'POST /api/help/upload': { status: 201, body: { file } },
      'DELETE /api/help/upload/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png': { body: { message: 'File deleted' } },
    });
    const form = await screen.findByRole('form', { name: 'Send a support message' });
    const input = form.querySelector('input[type="file"]') as HTMLInputElement;
    await app.user.upload(input, new File([new Uint8Array([0x89, 0x50])], 'shot.png', { type: 'image/png' }));
    const list = await within(form).findByRole('list', { name: 'Attached images' });
    expect(within(form).getByText('Max 5 images (1/5)')).toBeTruthy();
    const sent = app.api.calls('POST /api/help/upload')[0]?.body as FormData | undefined;
    expect(sent?.get('file')).toBeInstanceOf(File);
    await app.user.click(within(list).getByRole('button', { name: 'Remove shot.png' }));
    await waitFor(() =>
      expect(app.api.calls('DELETE /api/help/upload/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.png')).toHaveLength(1),
    );
    expect(within(form).queryByRole('list', { name: 'Attached images' })).toBeNull();
  });
});

describe('/get-help, the spec’s texts and times', () => {
  it('confirms a request with the spec’s toast and says by when support answers, by the plan', async () => {
    const sent = makeTicket({ plan: 'pro', dueAt: '2026-11-20T14:00:00.000Z' });
    const app = renderGetHelp({
      'POST /api/help/submit': { status: 201, body: { item: sent } },
      'GET /api/help/my': { body: { items: [sent] } },
    });
    const form = await screen.findByRole('form', { name: 'Send a support message' });
    await fillAndSend(app, form);
    expect(await toast("Your request has been received. We'll get back to you shortly.")).toBeTruthy();
    const due = new Date('2026-11-20T14:00:00.000Z').toLocaleString(undefined, {
      dateStyle: 'medium',
      timeStyle: 'short',
    });
    const success = screen.getByRole('status');
    expect(success.textContent).toContain(`Expect an answer by ${due} (within 4 hours on Pro).`);

    // The open ticket says it too; an answered one does not.
    await app.user.click(screen.getByRole('button', { name: 'View my tickets' }));
    const card = await screen.findByRole('article', { name: 'My site is down' });
    expect(within(card).getByText(`Expect an answer by ${due} (within 4 hours on Pro).`)).toBeTruthy();
  }, 15_000);

  it('says a trial or a Starter plan is answered within 24 hours', async () => {
    renderGetHelp(
      {
        'GET /api/help/my': {
          body: {
            items: [
              makeTicket({ plan: 'free', subject: 'On trial', dueAt: '2026-11-21T10:00:00.000Z' }),
              makeTicket({
                id: '2b5c8a1e-3b43-4c8e-9a57-0d4a8c1f2b10',
                subject: 'Answered',
                status: 'answered',
                adminResponse: { text: 'Done', respondedAt: '2026-11-20T11:00:00.000Z', attachments: [] },
              }),
            ],
          },
        },
      },
      '/get-help?tab=my',
    );
    const trial = await screen.findByRole('article', { name: 'On trial' });
    expect(within(trial).getByText(/^Expect an answer by .* \(within 24 hours\)\.$/)).toBeTruthy();
    const answered = screen.getByRole('article', { name: 'Answered' });
    expect(within(answered).queryByText(/Expect an answer/)).toBeNull();
  });

  it("falls back to 'Failed to submit request' and 'Upload failed', and shows the server's reason when it has one", async () => {
    const app = renderGetHelp({ 'POST /api/help/submit': broken, 'POST /api/help/upload': broken });
    const form = await screen.findByRole('form', { name: 'Send a support message' });
    await app.user.upload(
      form.querySelector('input[type="file"]') as HTMLInputElement,
      new File([new Uint8Array([0x89, 0x50])], 'shot.png', { type: 'image/png' }),
    );
    expect(await toast('Upload failed')).toBeTruthy();
    await fillAndSend(app, form);
    expect(await toast('Failed to submit request')).toBeTruthy();

    app.api.on({
      'POST /api/help/upload': {
        status: 413,
        body: apiError('Image must be 5 MB or smaller', 'payload_too_large'),
      },
    });
    await app.user.upload(
      form.querySelector('input[type="file"]') as HTMLInputElement,
      new File([new Uint8Array([0x89, 0x50])], 'big.png', { type: 'image/png' }),
    );
    expect(await toast('Image must be 5 MB or smaller')).toBeTruthy();
  }, 15_000);

  it("says 'Failed to load your tickets' and 'Failed to delete ticket'", async () => {
    const ticket = makeTicket();
    const app = renderGetHelp({ 'GET /api/help/my': broken }, '/get-help?tab=my');
    // Where the list would be, with Retry.
    expect(
      await screen.findByText('Failed to load your tickets', { selector: '.MuiAlert-message' }),
    ).toBeTruthy();

    app.api.on({
      'GET /api/help/my': { body: { items: [ticket] } },
      [`DELETE /api/help/${ticket.id}`]: broken,
    });
    await app.user.click(screen.getByRole('button', { name: 'Retry' }));
    await app.user.click(await screen.findByRole('button', { name: 'Delete ticket My site is down' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this ticket?' });
    await app.user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await toast('Failed to delete ticket')).toBeTruthy();
  }, 15_000);
});

describe('linkParts', () => {
  it('links markdown-style and bare http(s) links only', () => {
    expect(linkParts('see [docs](https://x.io/a) and https://y.io/b. [bad](javascript:alert(1))')).toEqual([
      { at: 0, text: 'see ' },
      { at: 4, text: 'docs', href: 'https://x.io/a' },
      { at: 26, text: ' and ' },
      { at: 31, text: 'https://y.io/b', href: 'https://y.io/b' },
      { at: 45, text: '. [bad](javascript:alert(1))' },
    ]);
  });
});
