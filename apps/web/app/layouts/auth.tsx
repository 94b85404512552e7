import { Outlet } from 'react-router';
import { Logo } from '../components/site-header.tsx';

export default function AuthLayout() {
  return (
    <div className="flex min-h-screen flex-col items-center justify-center px-4 py-12">
      <Logo />
      <main className="mt-8 w-full max-w-sm rounded-xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <Outlet />
      </main>
    </div>
  );
}
