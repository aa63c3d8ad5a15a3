import { DATABASE_PASSWORD_MESSAGE } from '@berth/openapi/rules';
import { describe, expect, it } from 'vitest';
import { validateDatabasePassword, validateDeploy, validateInstanceSettings } from './instance-validation.ts';

const deploy = { type: 'mysql', name: 'Orders', description: '', region: 'us-east-1' };

describe('deploy form', () => {
  it.each([
    [{ type: '' }, 'database', { type: 'Please select a database' }],
    [{ type: '' }, 'application', { type: 'Please select an application' }],
    [{ name: '' }, 'database', { name: 'Instance name is required' }],
    [{ name: '  ' }, 'database', { name: 'Name is required' }],
    [{ name: 'x'.repeat(100) }, 'database', {}],
    [{ name: 'x'.repeat(101) }, 'database', { name: 'Name too long' }],
    [{ description: 'd'.repeat(500) }, 'database', {}],
    [{ description: 'd'.repeat(501) }, 'database', { description: 'Description too long' }],
  ] as const)('%j in %s → %j', (change, category, expected) => {
    const errors = Object.fromEntries(
      Object.entries(validateDeploy({ ...deploy, ...change }, category)).filter(([, message]) => message),
    );
    expect(errors).toEqual(expected);
  });

  it('applies the same name and description rules to the instance settings', () => {
    expect(validateInstanceSettings({ name: '', description: '' }).name).toBe('Instance name is required');
    expect(validateInstanceSettings({ name: 'a', description: 'd'.repeat(501) }).description).toBe(
      'Description too long',
    );
  });
});

describe('change database password', () => {
  it.each([
    ['Abcdefgh1!', 'Abcdefgh1!', {}],
    ['Abcdefgh1!', 'Abcdefgh2!', { confirmPassword: 'Passwords do not match' }],
    ['', '', { password: 'Password is required' }],
    ['Abc1!', 'Abc1!', { password: DATABASE_PASSWORD_MESSAGE }],
    ['x'.repeat(129), 'x'.repeat(129), { password: DATABASE_PASSWORD_MESSAGE }],
    ['Abcdefgh\n1', 'Abcdefgh\n1', { password: DATABASE_PASSWORD_MESSAGE }],
  ])('%j / %j → %j', (password, confirmPassword, expected) => {
    const errors = Object.fromEntries(
      Object.entries(validateDatabasePassword({ password, confirmPassword })).filter(
        ([, message]) => message,
      ),
    );
    expect(errors).toEqual(expected);
  });
});
