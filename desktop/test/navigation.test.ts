import { describe, expect, it } from 'vitest';
import { isInAppRoute, isNavigationAllowed, isSafeExternalUrl } from '../src/main/navigation.ts';

const serverUrl = 'http://localhost:8080';

describe('isNavigationAllowed: packaged renderer (file://)', () => {
  const context = { rendererUrl: 'file:///opt/Berth/resources/app/out/renderer/index.html', serverUrl };

  it.each([
    ['the renderer itself', 'file:///opt/Berth/resources/app/out/renderer/index.html', true],
    [
      'a hash route of the renderer',
      'file:///opt/Berth/resources/app/out/renderer/index.html#/instances',
      true,
    ],
    ['another file next to the renderer', 'file:///opt/Berth/resources/app/out/renderer/other.html', false],
    ['a path that climbs out', 'file:///opt/Berth/resources/app/out/renderer/../../index.html', false],
    ['any other local file', 'file:///etc/passwd', false],
    ['the Berth server', 'http://localhost:8080/', false],
    ['a page on the Berth server', 'http://localhost:8080/api/docs', false],
    ['a website', 'https://example.com/', false],
    ['the dev server', 'http://localhost:5173/', false],
    ['javascript:', 'javascript:alert(1)', false],
    ['data:', 'data:text/html,<h1>hi</h1>', false],
    ['not a URL', 'index.html', false],
    ['empty', '', false],
  ])('%s → %s', (_name, url, allowed) => {
    expect(isNavigationAllowed(url, context)).toBe(allowed);
  });
});

describe('isNavigationAllowed: dev server (http://localhost:5173)', () => {
  const context = { rendererUrl: 'http://localhost:5173/', serverUrl };

  it.each([
    ['the dev server root', 'http://localhost:5173/', true],
    ['a hash route', 'http://localhost:5173/#/login', true],
    ['a module served by Vite', 'http://localhost:5173/src/main.tsx', true],
    ['another port', 'http://localhost:5174/', false],
    ['https instead of http', 'https://localhost:5173/', false],
    ['127.0.0.1 instead of localhost', 'http://127.0.0.1:5173/', false],
    ['a look-alike host', 'http://localhost:5173.evil.example/', false],
    ['credentials trick', 'http://localhost:5173@evil.example/', false],
    ['the Berth server', 'http://localhost:8080/', false],
    ['the packaged renderer file', 'file:///opt/Berth/resources/app/out/renderer/index.html', false],
  ])('%s → %s', (_name, url, allowed) => {
    expect(isNavigationAllowed(url, context)).toBe(allowed);
  });
});

describe('isNavigationAllowed: invalid renderer URL', () => {
  it('denies everything', () => {
    expect(isNavigationAllowed('http://localhost:5173/', { rendererUrl: 'nonsense', serverUrl })).toBe(false);
  });
});

describe('isSafeExternalUrl', () => {
  it.each([
    ['https://berth.example.com/docs', true],
    ['http://example.com', true],
    ['HTTPS://EXAMPLE.COM/', true],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['data:text/html,hi', false],
    ['mailto:support@example.com', false],
    ['smb://server/share', false],
    ['berth://callback', false],
    ['//example.com', false],
    ['example.com', false],
    ['', false],
  ])('%s → %s', (url, safe) => {
    expect(isSafeExternalUrl(url)).toBe(safe);
  });
});

describe('isInAppRoute', () => {
  it.each([
    ['/instances', true],
    ['/get-help?tab=my', true],
    ['/instances/5f0c7a52-4a0e-4a43-9a43-0c6f3f7c1a01', true],
    ['/', true],
    ['//evil.example/x', false],
    ['/\\evil.example', false],
    ['https://evil.example/', false],
    ['javascript:alert(1)', false],
    ['instances', false],
    ['/a b', false],
    ['/a\nb', false],
    ['', false],
    [`/${'a'.repeat(2048)}`, false],
  ])('%s → %s', (route, allowed) => {
    expect(isInAppRoute(route)).toBe(allowed);
  });
});
