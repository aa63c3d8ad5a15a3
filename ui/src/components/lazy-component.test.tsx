import { render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { lazyComponent } from './lazy-component.tsx';

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const Greeting = ({ name }: { name: string }) => <p>Hello, {name}</p>;

describe('lazyComponent', () => {
  it('suspends until its code is here, then shows it with its props', async () => {
    const code = deferred<typeof Greeting>();
    const Lazy = lazyComponent(() => code.promise);
    render(
      <Suspense fallback={<p>loading</p>}>
        <Lazy name="Ada" />
      </Suspense>,
    );
    expect(screen.getByText('loading')).toBeTruthy();
    code.resolve(Greeting);
    expect(await screen.findByText('Hello, Ada')).toBeTruthy();
  });

  it('renders at once, with no fallback in between, once preload() has fetched the code', async () => {
    let loads = 0;
    const Lazy = lazyComponent(async () => {
      loads += 1;
      return Greeting;
    });
    await Lazy.preload();
    render(
      <Suspense fallback={<p>loading</p>}>
        <Lazy name="Grace" />
      </Suspense>,
    );
    // In the very first commit: no fallback was ever shown.
    expect(screen.queryByText('loading')).toBeNull();
    expect(screen.getByText('Hello, Grace')).toBeTruthy();
    expect(loads).toBe(1);
  });

  it('tries a failed download again on the next use', async () => {
    let attempts = 0;
    const Lazy = lazyComponent(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('offline');
      return Greeting;
    });
    await expect(Lazy.preload()).rejects.toThrow('offline');
    await Lazy.preload();
    expect(attempts).toBe(2);
  });
});
