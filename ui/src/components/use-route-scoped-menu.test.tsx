import { act, renderHook } from '@testing-library/react';
import type { MouseEvent, ReactNode } from 'react';
import { MemoryRouter, useNavigate } from 'react-router';
import { expect, it } from 'vitest';
import { useRouteScopedMenu } from './use-route-scoped-menu.ts';

it('closes the menu on every route change', () => {
  const wrapper = ({ children }: { children: ReactNode }) => (
    <MemoryRouter initialEntries={['/dashboard']}>{children}</MemoryRouter>
  );
  const { result } = renderHook(() => ({ menu: useRouteScopedMenu(), navigate: useNavigate() }), { wrapper });
  const click = { currentTarget: document.body } as unknown as MouseEvent<HTMLElement>;

  act(() => result.current.menu.openMenu(click));
  expect(result.current.menu.open).toBe(true);
  expect(result.current.menu.anchorEl).toBe(document.body);

  act(() => {
    void result.current.navigate('/dashboard?tab=2');
  });
  expect(result.current.menu.open).toBe(false);
  expect(result.current.menu.anchorEl).toBeNull();

  act(() => result.current.menu.openMenu(click));
  act(() => result.current.menu.closeMenu());
  expect(result.current.menu.open).toBe(false);
});
