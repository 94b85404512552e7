import { NavLink, Outlet } from 'react-router';
import { SiteFooter } from '../components/site-footer.tsx';
import { SiteHeader } from '../components/site-header.tsx';

const tab = ({ isActive }: { isActive: boolean }) =>
  `block rounded-md px-3 py-2 text-sm font-medium ${isActive ? 'bg-brand-50 text-brand-700' : 'text-slate-700 hover:bg-slate-100'}`;

export default function DashboardAccountLayout() {
  return (
    <div className="flex min-h-screen flex-col">
      <SiteHeader />
      {/* minmax(0, …) columns: a long address or device name wraps instead of widening the page. */}
      <div className="mx-auto grid w-full max-w-6xl flex-1 grid-cols-1 gap-6 px-4 py-8 md:grid-cols-[200px_minmax(0,1fr)]">
        <nav aria-label="Account" className="flex gap-1 md:flex-col">
          <NavLink to="/account" end className={tab}>
            Account
          </NavLink>
          <NavLink to="/account/billing" className={tab}>
            Billing
          </NavLink>
          <NavLink to="/account/security" className={tab}>
            Security
          </NavLink>
        </nav>
        <main className="min-w-0">
          <Outlet />
        </main>
      </div>
      <SiteFooter />
    </div>
  );
}
