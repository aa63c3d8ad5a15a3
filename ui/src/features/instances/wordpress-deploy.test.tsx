import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { FakeRoutes } from '../../../test/fake-api.ts';
import { apiError, capabilities, makeInstance, makeUser } from '../../../test/fixtures.ts';
import { renderInstances } from '../../../test/instances.ts';
import { domainError, INITIAL_WORDPRESS, normaliseDomain, validateWordPress } from './instance-validation.ts';

const WITH_WORDPRESS = { 'GET /api/instances/capabilities': { body: capabilities({ wordpress: null }) } };
/** A host with PHP 8.3 and 8.2 (and nothing older). */
const WITH_TWO_PHPS = {
  'GET /api/instances/capabilities': {
    body: capabilities({ wordpress: null }, {}, { versions: ['8.3', '8.2'], default: '8.2' }),
  },
};
const site = makeInstance({ name: 'Blog', type: 'WordPress', product: 'wordpress', category: 'application' });
const ACCEPTED = { status: 202, body: { instance: site, message: 'Instance deployment initiated' } };

function renderNew(api: FakeRoutes = {}) {
  return renderInstances({ ...WITH_WORDPRESS, ...api }, makeUser(), '/instances/new');
}

async function chooseWordPress(app: ReturnType<typeof renderNew>) {
  await app.user.click(await screen.findByRole('radio', { name: 'WordPress' }));
  return screen.findByRole('region', { name: 'Configure your WordPress instance' });
}

const deployButton = () => screen.getByRole('button', { name: 'Deploy Instance' });

async function fill(
  app: ReturnType<typeof renderNew>,
  form: HTMLElement,
  label: RegExp | string,
  text: string,
) {
  const input = within(form).getByLabelText(label);
  await app.user.clear(input);
  await app.user.click(input);
  await app.user.paste(text);
}

describe('WordPress in Deploy New Instance', () => {
  it('opens on Applications with WordPress offered and the Deployment Information', async () => {
    const app = renderNew();
    const form = await chooseWordPress(app);
    expect(screen.getByRole('button', { name: 'Applications' }).getAttribute('aria-pressed')).toBe('true');
    expect(within(form).getByText(/30–60 seconds/)).toBeTruthy();
    expect(within(form).getByText(/Admin Panel URL/)).toBeTruthy();
    expect(within(form).getByLabelText(/Site Title/)).toBeTruthy();
    expect(within(form).getByRole('combobox', { name: 'PHP Version' }).textContent).toBe('PHP 8.2 (default)');
  });

  it('offers exactly the PHP versions the server has: a Debian 12 host only 8.2', async () => {
    const app = renderNew();
    const form = await chooseWordPress(app);
    await app.user.click(within(form).getByRole('combobox', { name: 'PHP Version' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['PHP 8.2 (default)']);
  });

  it('offers the versions of a host with several, newest first, and takes its default when 8.2 is not one', async () => {
    const app = renderNew(WITH_TWO_PHPS);
    const form = await chooseWordPress(app);
    await app.user.click(within(form).getByRole('combobox', { name: 'PHP Version' }));
    const options = await screen.findAllByRole('option');
    expect(options.map((option) => option.textContent)).toEqual(['PHP 8.3', 'PHP 8.2 (default)']);
    app.unmount();

    const only83 = renderNew({
      'GET /api/instances/capabilities': {
        body: capabilities({ wordpress: null }, {}, { versions: ['8.3'], default: '8.3' }),
      },
    });
    const other = await chooseWordPress(only83);
    await waitFor(() =>
      expect(within(other).getByRole('combobox', { name: 'PHP Version' }).textContent).toBe(
        'PHP 8.3 (default)',
      ),
    );
  });

  it('shows the WordPress messages and sends nothing', async () => {
    const app = renderNew();
    const form = await chooseWordPress(app);
    await fill(app, form, /Instance Name/, 'Blog');
    await app.user.click(deployButton());
    for (const message of [
      'Site title is required',
      'Admin username is required',
      'Admin email is required',
      'Admin password is required',
    ])
      expect(await within(form).findByText(message)).toBeTruthy();
    await fill(app, form, /Admin Email/, 'nobody');
    await fill(app, form, /Admin Password/, 'short');
    expect(await within(form).findByText('Invalid email')).toBeTruthy();
    expect(within(form).getByText('Min 8 characters')).toBeTruthy();
    await app.user.click(within(form).getByRole('radio', { name: 'Custom domain' }));
    await app.user.click(deployButton());
    expect(await within(form).findByText('Custom domain is required')).toBeTruthy();
    expect(within(form).getByText(/CNAME record/)).toBeTruthy();
    expect(app.api.calls('POST /api/instances/deploy')).toHaveLength(0);
  });

  it('names both DNS records a custom domain needs: the CNAME and the _berth-verify TXT record', async () => {
    const app = renderNew();
    const form = await chooseWordPress(app);
    await app.user.click(within(form).getByRole('radio', { name: 'Custom domain' }));
    const hint = within(form).getByText(/CNAME record/);
    expect(hint.textContent).toBe(
      'Point a CNAME record for your domain at this platform before you publish the site, so that it can bind the domain and issue its SSL certificate. ' +
        'Add a TXT record named _berth-verify.<your domain> as well, with the value the instance page shows once it is created: it proves the domain is yours, and the domain is bound only then.',
    );
  });

  it('sends the WordPress payload with a custom domain and the PHP version chosen', async () => {
    const app = renderNew({ ...WITH_TWO_PHPS, 'POST /api/instances/deploy': ACCEPTED });
    const form = await chooseWordPress(app);
    await fill(app, form, /Instance Name/, 'Blog');
    await fill(app, form, /Site Title/, ' My Blog ');
    await fill(app, form, /Admin Username/, 'admin');
    await fill(app, form, /Admin Email/, 'me@example.com');
    await fill(app, form, /Admin Password/, 'Sup3r-secret!');
    await app.user.click(within(form).getByRole('radio', { name: 'Custom domain' }));
    await fill(app, form, /Custom Domain/, 'https://blog.example.com/');
    await app.user.click(within(form).getByRole('combobox', { name: 'PHP Version' }));
    await app.user.click(await screen.findByRole('option', { name: 'PHP 8.3' }));
    await app.user.click(deployButton());

    expect(await screen.findByText('Instance deployment initiated')).toBeTruthy();
    await waitFor(() => expect(app.location()).toBe('/instances'));
    expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toEqual({
      name: 'Blog',
      description: '',
      region: 'us-east-1',
      type: 'WordPress',
      memory: '4GB',
      cpu: '2',
      domainType: 'Custom Domain',
      customDomain: 'blog.example.com',
      title: 'My Blog',
      username: 'admin',
      email: 'me@example.com',
      password: 'Sup3r-secret!',
      phpversion: '8.3',
    });
  });

  it("shows the server's refusal of a PHP version the host no longer has under the PHP field", async () => {
    // The host had 8.3 when the form loaded; it was removed before the deploy was sent.
    const refusal = 'PHP 8.3 is not available on this server. Choose PHP 8.2.';
    const app = renderNew({
      ...WITH_TWO_PHPS,
      'POST /api/instances/deploy': {
        status: 400,
        body: apiError(refusal, 'validation_error', { fieldErrors: { phpversion: [refusal] } }),
      },
    });
    const form = await chooseWordPress(app);
    await fill(app, form, /Instance Name/, 'Blog');
    await fill(app, form, /Site Title/, 'My Blog');
    await fill(app, form, /Admin Username/, 'admin');
    await fill(app, form, /Admin Email/, 'me@example.com');
    await fill(app, form, /Admin Password/, 'Sup3r-secret!');
    await app.user.click(within(form).getByRole('combobox', { name: 'PHP Version' }));
    await app.user.click(await screen.findByRole('option', { name: 'PHP 8.3' }));
    await app.user.click(deployButton());
    await waitFor(() => expect(within(form).getAllByText(refusal)).toHaveLength(1));
    expect(app.api.calls('POST /api/instances/deploy')[0]?.body).toMatchObject({
      phpversion: '8.3',
      domainType: 'Temporary',
    });
  });

  it('generates a 16-character strong password and inserts it with Use Password', async () => {
    const app = renderNew();
    const form = await chooseWordPress(app);
    await app.user.click(within(form).getByRole('button', { name: 'Generate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Generate Strong Password' });
    expect(await screen.findByText('Generated a strong password')).toBeTruthy();
    const shown = () => within(dialog).getByRole('textbox', { name: 'Generated password' }).textContent ?? '';
    const first = shown();
    expect(first).toHaveLength(16);
    expect(first).toMatch(/[A-Z]/);
    expect(first).toMatch(/[a-z]/);
    expect(first).toMatch(/\d/);
    expect(first).toMatch(/[^A-Za-z0-9]/);
    await app.user.click(within(dialog).getByRole('button', { name: 'Regenerate' }));
    expect(shown()).not.toBe(first);
    expect(within(dialog).getByRole('button', { name: 'Copy' })).toBeTruthy();
    const generated = shown();
    await app.user.click(within(dialog).getByRole('button', { name: 'Use Password' }));
    expect(await screen.findByText('Password inserted')).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((within(form).getByLabelText(/Admin Password/) as HTMLInputElement).value).toBe(generated);
    await app.user.click(within(form).getByRole('button', { name: 'Show admin password' }));
    expect(
      within(form)
        .getByLabelText(/Admin Password/)
        .getAttribute('type'),
    ).toBe('text');
  });
});

describe('WordPress rules', () => {
  it('checks the domain', () => {
    expect(domainError('  ')).toBe('Domain is required');
    expect(domainError('example')).toBe('Please enter a valid domain name');
    expect(domainError('-ab.com')).toBe('Please enter a valid domain name');
    expect(domainError('example.c')).toBe('Please enter a valid domain name');
    expect(domainError('https://example.com/')).toBeUndefined();
    expect(normaliseDomain(' https://Shop.example.com/ ')).toBe('Shop.example.com');
    expect(domainError('example.com')).toBeUndefined();
    expect(domainError('shop.example.co.uk')).toBeUndefined();
  });

  it('leaves the WordPress fields alone for n8n, but not the custom domain', () => {
    const errors = validateWordPress({ ...INITIAL_WORDPRESS, domainType: 'Custom Domain' }, false);
    expect(errors).toEqual({ customDomain: 'Custom domain is required' });
  });
});
