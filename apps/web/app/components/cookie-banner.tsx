import { anyIntegration, consentStore, setConsent } from '../lib/integrations.ts';
import { useStore } from '../lib/use-store.ts';
import { Button } from './button.tsx';

/** Asks before any optional integration loads. Shown only when one is configured and no choice is stored. */
export function CookieBanner() {
  const consent = useStore(consentStore, (c) => c, 'declined');
  if (!anyIntegration || consent !== null) return null;
  return (
    <section role="dialog" aria-label="Cookies" className="fixed inset-x-0 bottom-0 z-40 border-t border-slate-200 bg-white p-4 shadow-lg">
      <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-700">
          We use optional cookies for analytics, support chat and ads. They load only if you accept.{' '}
          <a href="/cookie-policy" className="underline">
            Cookie policy
          </a>
        </p>
        <div className="flex gap-2">
          <Button variant="secondary" onClick={() => setConsent('declined')}>
            Decline
          </Button>
          <Button onClick={() => setConsent('accepted')}>Accept</Button>
        </div>
      </div>
    </section>
  );
}
