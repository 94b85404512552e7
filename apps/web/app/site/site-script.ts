/**
 * The script of the static public pages (landing and pricing, see `staticPage` in root.tsx). Those pages
 * are prerendered HTML that never loads React; this small module gives them what the app would:
 * the query parameters read on any page, the signed-in redirect of the index route, the header's signed-in links,
 * prices in the visitor's currency, the cookie banner that gates the integrations, and the feedback form.
 */
import {
  DEFAULT_CURRENCY,
  NOTIFICATION_DURATION_MS,
  errorMessage,
  formatPrice,
  type feedbackRequest,
  type localizationResult,
  type UserData,
} from '@spawnpoint/contracts';
import { buttonClass, navLinkClass } from '../components/styles.ts';
import { analytics } from '../lib/analytics.ts';
import { anyIntegration, consentStore, identifyChat, initConsent, setConsent } from '../lib/integrations.ts';
import { forgetReferral, keepQueryParams, storedReferral } from '../lib/query-params.ts';
import { settings } from '../lib/settings.ts';
import type { z } from 'zod';

type Envelope = { status: string; message?: string; result?: unknown };

/*
 * No zod here: the schema library alone is three quarters of this script, so the two answers the script
 * reads are checked by hand for the fields it uses (see docs/performance.md, "Public site JavaScript").
 */

/** The visitor's currency from `GET /v1/localization`: three letters, as `localizationResult` requires. */
function currencyOf(result: unknown): z.output<typeof localizationResult>['currency'] | null {
  const currency = (result as { currency?: unknown } | null)?.currency;
  return typeof currency === 'string' && currency.length === 3 ? currency : null;
}

/** The signed-in user's id from `GET /v1/auth/session`'s `user`, the only field of `UserData` this script uses. */
function userIdOf(result: unknown): UserData['userId'] | null {
  const userId = (result as { userId?: unknown } | null)?.userId;
  return typeof userId === 'string' ? userId : null;
}

/** The support chat's identity from `GET /v1/auth/session`'s `user` (its email and `chatWidgetToken`). */
function chatUserOf(result: unknown): Pick<UserData, 'emailAddress' | 'chatWidgetToken'> | null {
  const { emailAddress, chatWidgetToken } = (result ?? {}) as { emailAddress?: unknown; chatWidgetToken?: unknown };
  return typeof emailAddress === 'string' && typeof chatWidgetToken === 'string' ? { emailAddress, chatWidgetToken } : null;
}

/**
 * Who is signed in: the `user` of `GET /v1/auth/session`, which answers SUCCESS to a visitor too (a 401
 * would show as a failed request in the console of every public page).
 */
async function signedInUser(): Promise<unknown> {
  const answer = await call('GET', '/v1/auth/session');
  return answer.status === 'SUCCESS' ? ((answer.result as { user?: unknown } | null)?.user ?? null) : null;
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Envelope> {
  const init: RequestInit = { method, credentials: 'include', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { accept: 'application/json', 'content-type': 'application/json' };
  }
  try {
    const response = await fetch(`${settings.apiBaseUrl}${path}`, init);
    const parsed = (await response.json()) as Envelope;
    return typeof parsed?.status === 'string' ? parsed : { status: 'BAD_RESPONSE' };
  } catch {
    return { status: 'NETWORK_ERROR', message: 'Could not reach Spawnpoint. Check your connection and try again.' };
  }
}

/** Creates an element with DOM properties (`className`, `textContent`, `type`, …) and children. */
function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Record<string, string | number> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const el = Object.assign(document.createElement(tag), props);
  el.append(...children);
  return el;
}

const navLink = navLinkClass();
const primaryButton = buttonClass('primary');
const secondaryButton = buttonClass('secondary');

/** The header of a signed-in user: the same links the app's header shows. */
function showSignedIn(): void {
  const nav = document.querySelector<HTMLElement>('header nav[aria-label="Main"]');
  if (!nav) return;
  const signOut = element('button', { type: 'button', className: navLink, textContent: 'Sign out' });
  signOut.addEventListener('click', async () => {
    signOut.disabled = true;
    await call('POST', '/v1/auth/logout');
    analytics.reset();
    location.reload();
  });
  nav.replaceChildren(
    element('a', { href: '/servers', className: navLink, textContent: 'Servers' }),
    element('a', { href: '/account', className: navLink, textContent: 'Account' }),
    signOut,
  );
}

async function showCurrency(): Promise<void> {
  const prices = document.querySelectorAll<HTMLElement>('[data-price-cents]');
  if (!prices.length) return;
  const answer = await call('GET', '/v1/localization');
  const currency = answer.status === 'SUCCESS' ? currencyOf(answer.result) : null;
  // The prerendered prices are in the default currency; first use of Intl costs a long task, so only when needed.
  if (currency === null || currency === DEFAULT_CURRENCY) return;
  for (const price of prices) price.textContent = formatPrice(Number(price.dataset.priceCents), currency);
}

function showCookieBanner(): void {
  if (document.getElementById('cookie-banner')) return;
  const choose = (value: 'accepted' | 'declined') => () => {
    setConsent(value);
    banner.remove();
  };
  const decline = element('button', { type: 'button', className: secondaryButton, textContent: 'Decline' });
  const accept = element('button', { type: 'button', className: primaryButton, textContent: 'Accept' });
  decline.addEventListener('click', choose('declined'));
  accept.addEventListener('click', choose('accepted'));
  const banner = element(
    'section',
    { id: 'cookie-banner', className: 'fixed inset-x-0 bottom-0 z-40 border-t border-slate-200 bg-white p-4 shadow-lg' },
    element(
      'div',
      { className: 'mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3' },
      element(
        'p',
        { className: 'text-sm text-slate-700' },
        'We use optional cookies for analytics, support chat and ads. They load only if you accept. ',
        element('a', { href: '/cookie-policy', className: 'underline', textContent: 'Cookie policy' }),
      ),
      element('div', { className: 'flex gap-2' }, decline, accept),
    ),
  );
  banner.setAttribute('role', 'dialog');
  banner.setAttribute('aria-label', 'Cookies');
  document.body.append(banner);
}

/** A short confirmation in the corner, like the app's success toasts. */
function notice(text: string): void {
  const box = element('div', {
    className:
      'fixed right-4 top-4 z-50 rounded-lg border border-green-200 bg-green-50 px-4 py-3 text-sm font-medium text-green-800 shadow-lg',
    textContent: text,
  });
  box.setAttribute('role', 'status');
  document.body.append(box);
  setTimeout(() => box.remove(), NOTIFICATION_DURATION_MS);
}

/** The feedback form in a native dialog (focus kept inside, Escape closes). */
function openFeedback(): void {
  const message = element('textarea', {
    id: 'feedback-message',
    rows: 5,
    className: 'mt-2 block w-full rounded-md border border-slate-300 px-3 py-2',
  });
  const status = element('p', { className: 'mt-3 text-sm', role: 'status' });
  const cancel = element('button', { type: 'button', className: secondaryButton, textContent: 'Cancel' });
  const send = element('button', { type: 'submit', className: primaryButton, textContent: 'Send' });
  const form = element(
    'form',
    {},
    element('h2', { className: 'text-lg font-bold', id: 'feedback-title', textContent: 'Send feedback' }),
    element('label', {
      htmlFor: 'feedback-message',
      className: 'mt-4 block text-sm text-slate-600',
      textContent: 'Tell us what works, what does not, or what you would like to see.',
    }),
    message,
    status,
    element('div', { className: 'mt-6 flex justify-end gap-3' }, cancel, send),
  );
  const dialog = element(
    'dialog',
    { className: 'm-auto w-[calc(100%-2rem)] max-w-lg rounded-xl p-6 shadow-xl backdrop:bg-slate-900/50' },
    form,
  );
  dialog.setAttribute('aria-labelledby', 'feedback-title');
  cancel.addEventListener('click', () => dialog.close());
  dialog.addEventListener('close', () => dialog.remove());
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    send.disabled = true;
    // The full path, as the app's own dialog sends it (spec: the current page's full path).
    const body: z.input<typeof feedbackRequest> = {
      message: message.value,
      route: (location.pathname + location.search + location.hash).slice(0, 2048),
    };
    const answer = await call('POST', '/v1/feedback/submit', body);
    send.disabled = false;
    if (answer.status === 'SUCCESS') {
      dialog.close();
      notice('Feedback sent');
      return;
    }
    status.className = 'mt-3 text-sm text-red-700';
    // Keep the text; say what went wrong in the server's words.
    status.textContent = answer.message ?? errorMessage('INTERNAL_ERROR');
  });
  document.body.append(dialog);
  dialog.showModal();
  message.focus();
}

async function main(): Promise<void> {
  const search = new URLSearchParams(location.search);
  // The app build skips the landing page; an emailed verification link is handled by the app.
  if (settings.platform === 'app' || search.has('verify_token')) {
    location.replace(settings.platform === 'app' ? '/servers' : `/servers${location.search}`);
    return;
  }
  keepQueryParams(search);
  // An invitation link: the app accepts the kept token once someone is signed in, so a visitor without a
  // session registers first (the register page links to sign-in).
  if (search.has('invite_token')) {
    location.replace(userIdOf(await signedInUser()) !== null ? '/servers' : '/register');
    return;
  }
  document.querySelectorAll('[aria-disabled]').forEach((el) => el.removeAttribute('aria-disabled'));

  initConsent();
  if (anyIntegration && consentStore.get() === null) showCookieBanner();
  document.addEventListener('click', (event) => {
    const action = (event.target as HTMLElement | null)?.closest<HTMLElement>('[data-site-action]')?.dataset.siteAction;
    if (action === 'feedback') openFeedback();
    if (action === 'cookie-settings') showCookieBanner();
  });

  void showCurrency();
  const user = await signedInUser();
  const userId = userIdOf(user);
  if (userId === null) return;
  identifyChat(chatUserOf(user));
  onSignedIn(userId);
}

function onSignedIn(userId: UserData['userId']): void {
  // Once the user state is known, a signed-in user is sent from the index to the servers list.
  if (location.pathname === '/') {
    location.replace('/servers');
    return;
  }
  analytics.identify(userId);
  showSignedIn();
  const referral = storedReferral();
  if (referral) void call('POST', '/v1/referral', { referral }).then((answer) => answer.status === 'SUCCESS' && forgetReferral());
}

// Never alongside the app: a page the app rendered has its own handling.
if (!('__reactRouterContext' in window)) void main();
