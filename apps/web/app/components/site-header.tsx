import { Link, NavLink } from 'react-router';
import { logout, useUser } from '../lib/user-store.ts';
import { Button } from './button.tsx';
import { buttonClass, navLinkClass } from './styles.ts';

export function Logo() {
  return (
    <Link to="/" className="flex items-center gap-2 text-lg font-extrabold tracking-tight text-slate-900">
      <svg viewBox="0 0 32 32" className="size-7" aria-hidden="true">
        <rect width="32" height="32" rx="6" fill="#16a34a" />
        <rect x="9" y="9" width="14" height="14" rx="2" fill="#fff" />
        <rect x="13" y="13" width="6" height="6" fill="#16a34a" />
      </svg>
      Spawnpoint
    </Link>
  );
}

const navClass = ({ isActive }: { isActive: boolean }) => navLinkClass(isActive);

export function SiteHeader() {
  const signedIn = useUser((s) => s.userData !== null);
  const initialized = useUser((s) => s.initialized);
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <Logo />
        <nav aria-label="Main" className="flex flex-wrap items-center gap-1">
          {signedIn ? (
            <>
              <NavLink to="/servers" className={navClass}>
                Servers
              </NavLink>
              <NavLink to="/account" className={navClass}>
                Account
              </NavLink>
              <Button variant="ghost" onClick={logout}>
                Sign out
              </Button>
            </>
          ) : (
            <>
              <NavLink to="/pricing" className={navClass}>
                Pricing
              </NavLink>
              <NavLink to="/blog" className={navClass}>
                Blog
              </NavLink>
              {/* Until the first user fetch answers, show the signed-out links; they are right for visitors. */}
              <NavLink to="/login" className={navClass} aria-disabled={!initialized || undefined}>
                Sign in
              </NavLink>
              <Link to="/register" className={buttonClass('primary')}>
                Get started
              </Link>
            </>
          )}
        </nav>
      </div>
    </header>
  );
}
