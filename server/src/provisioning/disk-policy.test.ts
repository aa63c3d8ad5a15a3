import { describe, expect, it } from 'vitest';
import { HOLD_SHARE, holdLevel, holdPlan, refusalOf } from './disk-policy.ts';

const MIB = 1024 * 1024;

describe('the hold (disk-policy.ts holdPlan)', () => {
  it('holds nothing, and lets go of every hold, while the disks’ free space fits in the room', () => {
    const disks = [
      { freeBytes: 100 * MIB, holdBytes: 0 },
      { freeBytes: 50 * MIB, holdBytes: 50 * MIB },
    ];
    expect([...holdPlan(disks, 400 * MIB).sizes]).toEqual([[1, 0]]);
  });

  it('deals the room evenly, a small disk keeping all it has, and holds the rest', () => {
    expect(holdLevel([10, 100, 100], 110)).toBe(50);
    const disks = [
      { freeBytes: 10 * MIB, holdBytes: 0 },
      { freeBytes: 1000 * MIB, holdBytes: 0 },
      { freeBytes: 1000 * MIB, holdBytes: 0 },
    ];
    const room = 500 * MIB;
    const plan = holdPlan(disks, room).sizes;
    const level = (HOLD_SHARE * room - 10 * MIB) / 2;
    expect(plan.has(0)).toBe(false);
    expect(plan.get(1)).toBe(1000 * MIB - Math.floor(level));
    expect(plan.get(2)).toBe(1000 * MIB - Math.floor(level));
    // What the disks may write together then fits in the room, with the spare kept for writers.
    const free = disks.map((disk, i) => disk.freeBytes + disk.holdBytes - (plan.get(i) ?? disk.holdBytes));
    expect(free.reduce((a, b) => a + b)).toBeLessThanOrEqual(HOLD_SHARE * room + 1);
  });

  it('tops up a disk that spent its allowance from the spare, without touching the others', () => {
    // Dealt at 190 MiB each; the first has written 180 of its 190.
    const disks = [
      { freeBytes: 10 * MIB, holdBytes: 800 * MIB },
      { freeBytes: 190 * MIB, holdBytes: 800 * MIB },
    ];
    const plan = holdPlan(disks, 490 * MIB).sizes;
    expect([...plan.keys()]).toEqual([0]);
    expect(810 * MIB - (plan.get(0) ?? 0)).toBeGreaterThan(100 * MIB);
  });

  it('deals again, taking from every disk, when the room shrank below what they may write', () => {
    const disks = [
      { freeBytes: 200 * MIB, holdBytes: 800 * MIB },
      { freeBytes: 200 * MIB, holdBytes: 800 * MIB },
    ];
    const plan = holdPlan(disks, 100 * MIB).sizes;
    expect(plan.size).toBe(2);
    for (const bytes of plan.values()) expect(bytes).toBe(1000 * MIB - 40 * MIB);
    // No room at all: every disk held where it is.
    const none = holdPlan(disks, -5 * MIB).sizes;
    for (const bytes of none.values()) expect(bytes).toBe(1000 * MIB);
  });
});

describe('a new disk under the hold', () => {
  it('is brought down to its allowance alone: the disks already dealt are not written again', () => {
    const dealt = Array.from({ length: 10 }, () => ({ freeBytes: 40 * MIB, holdBytes: 960 * MIB }));
    const plan = holdPlan([...dealt, { freeBytes: 1000 * MIB, holdBytes: 0 }], 500 * MIB).sizes;
    expect([...plan.keys()]).toEqual([10]);
    expect(1000 * MIB - (plan.get(10) ?? 0)).toBeLessThanOrEqual(40 * MIB);
  });
});

describe('new disks under the hold', () => {
  const figures = {
    sizeBytes: 100 * 1024 * MIB,
    usedBytes: 10 * 1024 * MIB,
    freeBytes: 90 * 1024 * MIB,
    promisedBytes: 0,
    tenantUsedBytes: 0,
    disks: 0,
  };
  const policy = { reserveBytes: 2048 * MIB, overcommit: 4 };

  it('are refused once the hold deals each disk less than a deploy needs, and not before', () => {
    expect(refusalOf(figures, policy, 1024 * MIB)).toBeUndefined();
    expect(refusalOf(figures, policy, 1024 * MIB, 48 * MIB)).toBeUndefined();
    expect(refusalOf(figures, policy, 1024 * MIB, 10 * MIB)).toMatch(
      /^a new 1024 MiB disk refused: the hold deals each disk only 10 MiB \(less than 32 MiB\)/,
    );
  });
});
