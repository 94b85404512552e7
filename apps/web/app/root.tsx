import './lib/zod-config.ts';
import { endpoints, NOTIFICATION_DURATION_MS } from '@spawnpoint/contracts';
import { useContext, useEffect, useState, type ReactNode } from 'react';
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Navigate,
  Outlet,
  Scripts,
  ScrollRestoration,
  UNSAFE_FrameworkContext,
  useLocation,
  useMatches,
  useNavigate,
  type NavigateFunction,
} from 'react-router';
import { Toaster } from 'sonner';
import type { Route } from './+types/root';
import './app.css';
// The same file app.css's @font-face names (one asset in the build): fetched with the stylesheet, not after it.
import headingFont from '@fontsource/pixelify-sans/files/pixelify-sans-latin-700-normal.woff2?url';
import { CookieBanner } from './components/cookie-banner.tsx';
import { DialogsHost } from './components/dialogs-host.tsx';
import { identifyChat, initConsent, trackPageView } from './lib/integrations.ts';
import { LoadingBar } from './components/loading-bar.tsx';
import { ErrorPage, NotFoundPage } from './components/error-pages.tsx';
import { analytics } from './lib/analytics.ts';
import { ApiFailure, call, setFailureHandler } from './lib/api.ts';
import { handleApiError } from './lib/api-errors.ts';
import { checkForNewBuild, guardedReload } from './lib/build-version.ts';
import { decideNavigation } from './lib/navigation.ts';
import { acceptStoredInvite, storedInvite } from './lib/invitations.ts';
import { forgetReferral, keepQueryParams, storedReferral } from './lib/query-params.ts';
import { settings } from './lib/settings.ts';
import { connectSocket, disconnectSocket } from './lib/socket.ts';
import { notify } from './lib/toasts.ts';
import { fetchUser, startServerPolling, userStore, useUser } from './lib/user-store.ts';

// Every failed call the user did not start in the background is shown as lib/api-errors.ts decides.
setFailureHandler(handleApiError);

/**
 * Pages whose route exports `handle.staticPage` (landing, pricing) are prerendered without the app's
 * scripts: they load only the site script (app/site/site-script.ts), a few KB instead of React. Reached
 * by a link inside the app they render as usual; in dev every page is the full app.
 */
function useStaticPage(): boolean {
  const matches = useMatches();
  // The SPA fallback page is rendered for "/" too (root only); it must keep the app's scripts.
  const spaFallback = useContext(UNSAFE_FrameworkContext)?.isSpaMode ?? true;
  return (
    import.meta.env.PROD &&
    typeof document === 'undefined' &&
    !spaFallback &&
    matches.some((m) => (m.handle as { staticPage?: boolean } | undefined)?.staticPage === true)
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const staticPage = useStaticPage();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#16a34a" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {/* Headings' font: preloaded so it is there by the first paint and the text does not shift when it swaps in. */}
        <link rel="preload" href={headingFont} as="font" type="font/woff2" crossOrigin="anonymous" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-slate-50 font-sans text-slate-900 antialiased">
        {children}
        {staticPage ? (
          <script type="module" src={__SITE_SCRIPT__} />
        ) : (
          <>
            <ScrollRestoration />
            <Scripts />
          </>
        )}
      </body>
    </html>
  );
}

let routeRules: Record<string, string> = {};

export default function App() {
  const location = useLocation();
  const navigate = useNavigate();
  const matches = useMatches();
  const initialized = useUser((s) => s.initialized);
  const signedIn = useUser((s) => s.userData !== null);
  const leftOnPurpose = useUser((s) => s.leftOnPurpose === true);
  const userId = useUser((s) => s.userData?.userId);
  const emailAddress = useUser((s) => s.userData?.emailAddress);
  const chatWidgetToken = useUser((s) => s.userData?.chatWidgetToken);
  const [rulesLoaded, setRulesLoaded] = useState(0);

  // First fetch of the user (and their servers), route rules, and chunk-failure reloads.
  useEffect(() => {
    void fetchUser({ withServers: true });
    initConsent();
    call(endpoints.routeRules, {}, { background: true }).then(
      (rules) => {
        routeRules = rules;
        setRulesLoaded((n) => n + 1);
      },
      (error: unknown) => console.warn('route rules could not be loaded', error),
    );
    const onPreloadError = (event: Event) => {
      event.preventDefault();
      guardedReload();
    };
    window.addEventListener('vite:preloadError', onPreloadError);
    return () => window.removeEventListener('vite:preloadError', onPreloadError);
  }, []);

  // The support chat (when configured and consented to) is the signed-in user's own conversation.
  useEffect(() => {
    if (!initialized) return;
    identifyChat(emailAddress && chatWidgetToken ? { emailAddress, chatWidgetToken } : null);
  }, [initialized, emailAddress, chatWidgetToken]);

  useSignedInSession(userId, navigate);

  useInviteRedirect(initialized, signedIn, location.pathname, navigate);

  useAddressTokens(location.pathname, location.search, navigate);

  useEffect(() => {
    trackPageView(location.pathname);
  }, [location.pathname]);

  const leaf = matches[matches.length - 1];
  const decision = decideNavigation({
    pathname: location.pathname,
    search: location.search,
    routeId: leaf?.id,
    platform: settings.platform,
    supportUrl: settings.supportUrl,
    routeRules: rulesLoaded ? routeRules : {},
    initialized,
    signedIn,
    leftOnPurpose,
  });

  useEffect(() => {
    if (decision.type === 'external') window.location.assign(decision.url);
  }, [decision]);

  // Once a page shows after a deliberate sign-out, a later page that needs a session asks to sign in again.
  useEffect(() => {
    if (leftOnPurpose && decision.type === 'render') userStore.set((s) => ({ ...s, leftOnPurpose: false }));
  }, [leftOnPurpose, decision.type]);

  return (
    <>
      <LoadingBar />
      {decision.type === 'redirect' ? (
        <Navigate to={decision.to} replace />
      ) : decision.type === 'render' ? (
        <Outlet />
      ) : (
        <div className="flex min-h-screen items-center justify-center" role="status" aria-live="polite">
          <span className="size-8 animate-spin rounded-full border-4 border-brand-600 border-t-transparent" aria-hidden="true" />
          <span className="sr-only">Loading…</span>
        </div>
      )}
      <DialogsHost />
      <CookieBanner />
      {/* Below the site header (61 px in one row; 101 px where it wraps, under sonner's 600 px phone width), so a
          notice never covers Servers, Account or Sign out while it shows. */}
      <Toaster
        position="top-right"
        offset={{ top: 76, right: 16 }}
        mobileOffset={{ top: 112, left: 16, right: 16 }}
        duration={NOTIFICATION_DURATION_MS}
        richColors
        closeButton
      />
    </>
  );
}

/** Signed in: live socket, 5 s server polling, analytics identity. Signed out: none of them. */
function useSignedInSession(userId: string | undefined, navigate: NavigateFunction): void {
  useEffect(() => {
    if (!userId) {
      disconnectSocket();
      return;
    }
    analytics.identify(userId);
    void connectSocket();
    // A referral code kept from ?r= is sent once the visitor is signed in (registration sends it too).
    const referral = storedReferral();
    if (referral) {
      call(endpoints.referralCredit, { body: { referral } }, { background: true }).then(forgetReferral, () => undefined);
    }
    // An invitation kept from ?invite_token= (through registration or sign-in) is accepted now.
    void acceptStoredInvite((serverId) => navigate(`/servers/${encodeURIComponent(serverId)}`));
    return startServerPolling();
  }, [userId]);
}

/** An invitation link opened while signed out: registering (or signing in from there) keeps the token. */
function useInviteRedirect(initialized: boolean, signedIn: boolean, pathname: string, navigate: NavigateFunction): void {
  useEffect(() => {
    if (initialized && !signedIn && storedInvite() && !pathname.startsWith('/register') && !pathname.startsWith('/login')) {
      notify('info', 'Server invite', 'Sign in or create an account with the invited address to accept it.');
      navigate('/register', { replace: true });
    }
  }, [initialized, signedIn, pathname, navigate]);
}

/** The query parameters read on any page (lib/query-params.ts), and the deployed-build check on every navigation. */
function useAddressTokens(pathname: string, search: string, navigate: NavigateFunction): void {
  useEffect(() => {
    const params = new URLSearchParams(search);
    keepQueryParams(params);
    if (params.has('invite_token')) {
      // Kept in session storage; the link's token does not stay in the address bar or history.
      params.delete('invite_token');
      const rest = params.toString();
      navigate({ pathname, search: rest ? `?${rest}` : '' }, { replace: true });
      if (userStore.get().userData) void acceptStoredInvite((serverId) => navigate(`/servers/${encodeURIComponent(serverId)}`));
    }
    const verifyToken = params.get('verify_token');
    if (verifyToken) {
      params.delete('verify_token');
      const rest = params.toString();
      navigate({ pathname, search: rest ? `?${rest}` : '' }, { replace: true });
      call(endpoints.verifyEmail, { body: { token: verifyToken } }, { background: true }).then(
        async () => {
          analytics.track('email_verified');
          notify('success', 'Account verification', 'Your email address has been verified.');
          await fetchUser();
        },
        (failure: unknown) => {
          // The link opened again on a verified account: news, not an error ("Whoopsie!" would alarm).
          if (failure instanceof ApiFailure && failure.code === 'INVALID_STATE') notify('info', 'Account verification', failure.message);
          else if (failure instanceof ApiFailure) handleApiError(failure);
        },
      );
    }
    void checkForNewBuild();
  }, [pathname, search, navigate]);
}

export function HydrateFallback() {
  return (
    <div className="flex min-h-screen items-center justify-center" role="status">
      <span className="size-8 animate-spin rounded-full border-4 border-brand-600 border-t-transparent" aria-hidden="true" />
      <span className="sr-only">Loading…</span>
    </div>
  );
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const location = useLocation();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage path={location.pathname} />;
  return <ErrorPage error={error} />;
}
