import { describe, expect, it } from 'vitest';
import { validateApply } from './affiliate-apply-form.tsx';
import { generatedUsername, splitFullName } from './affiliate-register-page.tsx';
import { toCsv } from './csv.ts';
import { statementCsv, yearsOffered } from './monthly-statement.tsx';
import { payoutAmountError, payoutsCsv } from './payouts-tab.tsx';
import { changeLabel } from './stat-cards.tsx';

describe('affiliate rules (payout request, referral code)', () => {
  it('payout amounts: the three messages in order', () => {
    expect(payoutAmountError(Number(''), 50, 80)).toBe('Please enter a valid payout amount');
    expect(payoutAmountError(-1, 50, 80)).toBe('Please enter a valid payout amount');
    expect(payoutAmountError(49.99, 50, 80)).toBe('Minimum payout amount is $50');
    expect(payoutAmountError(80.01, 50, 80)).toBe('Payout amount cannot exceed pending payout balance');
    expect(payoutAmountError(80, 50, 80)).toBeUndefined();
  });

  it('splits the full name and generates a username from the first name and a timestamp', () => {
    expect(splitFullName('  Grace  Brewster Hopper ')).toEqual({
      firstName: 'Grace',
      lastName: 'Brewster Hopper',
    });
    expect(splitFullName('Cher')).toEqual({ firstName: 'Cher', lastName: '-' });
    expect(generatedUsername('Élodie', 1_767_225_600_000)).toBe('elodie1767225600000');
    expect(generatedUsername('Ada', 1_767_225_600_000)).toMatch(/^[a-z0-9_-]{3,30}$/);
  });

  it('apply: terms, and the details of the chosen method', () => {
    const base = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      website: '',
      paymentMethod: 'paypal' as const,
      paypalEmail: '',
      bankAccount: '',
      agreeTerms: false,
    };
    expect(validateApply(base)).toEqual({
      paypalEmail: 'PayPal email is required',
      agreeTerms: 'You must agree to the terms and conditions',
    });
    expect(validateApply({ ...base, paymentMethod: 'bank', agreeTerms: true })).toEqual({
      bankAccount: 'Bank account information is required',
    });
  });

  it('CSV: quoted fields, defused formulas; the statement and payout files', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x,y', '=SUM(A1)'],
          [1, null],
        ],
      ),
    ).toBe('a,b\r\n"x,y",\'=SUM(A1)\r\n1,');
    const months = Array.from({ length: 12 }, (_, i) => ({
      month: i + 1,
      clicks: i === 0 ? 2 : 0,
      referrals: i === 0 ? 1 : 0,
      activeReferrals: 0,
      earnings: i === 0 ? 4 : 0,
    }));
    const csv = statementCsv({
      year: 2026,
      currency: 'USD',
      months,
      totals: { clicks: 2, referrals: 1, activeReferrals: 0, earnings: 4 },
    }).split('\r\n');
    expect(csv[1]).toBe('January 2026,2,1,0,4.00');
    expect(csv).toHaveLength(14);
    expect(csv[13]).toBe('Total,2,1,0,4.00');
    expect(
      payoutsCsv([
        {
          id: 'p1',
          amount: 50,
          currency: 'USD',
          status: 'completed',
          method: 'paypal',
          transactionId: 'TX-1',
          failureReason: null,
          createdAt: '2026-11-02T10:00:00.000Z',
          requestedAt: '2026-11-02T10:00:00.000Z',
          processedAt: '2026-11-04T10:00:00.000Z',
        },
      ]).split('\r\n')[1],
    ).toBe('50.00,USD,completed,2026-11-02,2026-11-04,PayPal,TX-1');
  });

  it('offers the current year and the 4 before; badges say the change', () => {
    expect(yearsOffered(new Date('2026-06-01'))).toEqual([2026, 2025, 2024, 2023, 2022]);
    expect(changeLabel(12.5)).toBe('+12.5% vs last month');
    expect(changeLabel(-3)).toBe('-3.0% vs last month');
    expect(changeLabel(null)).toBe('New this month');
    expect(changeLabel(2, ' pts')).toBe('+2.0 pts vs last month');
  });
});
