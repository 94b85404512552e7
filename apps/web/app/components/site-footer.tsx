import { Link } from 'react-router';
import { openDialog } from '../lib/dialogs.ts';
import { anyIntegration, consentStore } from '../lib/integrations.ts';
import { settings } from '../lib/settings.ts';

/** Links one above the other, each at least 24 px tall so a finger hits the one it means (WCAG 2.5.8). */
const footerNav = 'flex flex-col items-start gap-1 [&>*]:min-h-6 [&>*]:py-0.5';

export function SiteFooter() {
  return (
    <footer className="mt-auto border-t border-slate-200 bg-white">
      <div className="mx-auto grid max-w-6xl gap-8 px-4 py-10 text-sm text-slate-600 sm:grid-cols-3">
        <div>
          <p className="font-semibold text-slate-900">Spawnpoint</p>
          <p className="mt-2">Free Minecraft servers, run from your browser.</p>
        </div>
        <nav aria-label="Product" className={footerNav}>
          <Link to="/pricing">Pricing</Link>
          <Link to="/server-list">Server list</Link>
          <Link to="/affiliate">Affiliate programme</Link>
          <Link to="/blog">Blog</Link>
          <Link to="/tools/nether-portal-calculator">Nether portal calculator</Link>
          <Link to="/giveaway/10-minecraft-accounts">Giveaway</Link>
        </nav>
        <nav aria-label="Legal and help" className={footerNav}>
          <a href={settings.supportUrl}>Help centre</a>
          <button type="button" className="text-left" data-site-action="feedback" onClick={() => openDialog('feedback', {})}>
            Send feedback
          </button>
          <Link to="/terms-of-service">Terms of service</Link>
          <Link to="/privacy-policy">Privacy policy</Link>
          <Link to="/cookie-policy">Cookie policy</Link>
          {anyIntegration ? (
            <button type="button" className="text-left" data-site-action="cookie-settings" onClick={() => consentStore.set(null)}>
              Cookie settings
            </button>
          ) : null}
        </nav>
      </div>
    </footer>
  );
}
