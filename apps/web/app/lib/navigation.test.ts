import { describe, expect, it } from 'vitest';
import { afterSignInPath, decideNavigation, type NavigationInput } from './navigation.ts';

const base: NavigationInput = {
  pathname: '/',
  search: '',
  routeId: 'index',
  platform: 'web',
  supportUrl: 'https://help.example',
  routeRules: {},
  initialized: true,
  signedIn: false,
};

describe('decideNavigation', () => {
  it('sends a signed-out visitor of a protected page to /login, remembering where they were', () => {
    expect(decideNavigation({ ...base, pathname: '/servers/abc/files', search: '?path=/world', routeId: 'servers-id-files' })).toEqual({
      type: 'redirect',
      to: '/login?redirect=%2Fservers%2Fabc%2Ffiles%3Fpath%3D%2Fworld',
    });
  });

  it('sends a user who just signed out (or deleted the account) home, not to sign-in with a way back', () => {
    expect(decideNavigation({ ...base, pathname: '/account', routeId: 'account', leftOnPurpose: true })).toEqual({
      type: 'redirect',
      to: '/',
    });
  });

  it('waits for the first user fetch before judging a protected page', () => {
    expect(decideNavigation({ ...base, pathname: '/account', routeId: 'account', initialized: false })).toEqual({ type: 'wait' });
  });

  it('sends a signed-in user away from the unauthenticated-only pages', () => {
    expect(decideNavigation({ ...base, pathname: '/login', routeId: 'login', signedIn: true })).toEqual({
      type: 'redirect',
      to: '/servers',
    });
    expect(
      decideNavigation({ ...base, pathname: '/register', routeId: 'register', signedIn: true, search: '?redirect=%2Faccount' }),
    ).toEqual({
      type: 'redirect',
      to: '/account',
    });
  });

  it('sends a signed-in user from the landing page to /servers once initialised', () => {
    expect(decideNavigation({ ...base, signedIn: true })).toEqual({ type: 'redirect', to: '/servers' });
    expect(decideNavigation({ ...base, signedIn: true, initialized: false })).toEqual({ type: 'render' });
    expect(decideNavigation(base)).toEqual({ type: 'render' });
  });

  it('always redirects the index to /servers in the app build', () => {
    expect(decideNavigation({ ...base, platform: 'app', initialized: false })).toEqual({ type: 'redirect', to: '/servers' });
  });

  it('leaves the app for /support paths', () => {
    expect(decideNavigation({ ...base, pathname: '/support/billing', routeId: 'not-found' })).toEqual({
      type: 'external',
      url: 'https://help.example',
    });
  });

  it('applies route rules, with a full page load for absolute targets', () => {
    const routeRules = { '/old': '/pricing', '/discord': 'https://discord.example/x' };
    expect(decideNavigation({ ...base, pathname: '/old', routeId: 'not-found', routeRules })).toEqual({ type: 'redirect', to: '/pricing' });
    expect(decideNavigation({ ...base, pathname: '/discord', routeId: 'not-found', routeRules })).toEqual({
      type: 'external',
      url: 'https://discord.example/x',
    });
  });

  it('renders public pages and the 404 page for everyone', () => {
    expect(decideNavigation({ ...base, pathname: '/pricing', routeId: 'pricing', signedIn: true })).toEqual({ type: 'render' });
    expect(decideNavigation({ ...base, pathname: '/nope', routeId: 'not-found' })).toEqual({ type: 'render' });
  });
});

describe('afterSignInPath', () => {
  it('honours only our own paths', () => {
    expect(afterSignInPath('?redirect=%2Faccount')).toBe('/account');
    expect(afterSignInPath('?redirect=https%3A%2F%2Fevil.example')).toBe('/servers');
    expect(afterSignInPath('?redirect=%2F%2Fevil.example')).toBe('/servers');
    expect(afterSignInPath('?redirect=%2F%5Cevil.example')).toBe('/servers');
    expect(afterSignInPath('')).toBe('/servers');
  });
});
