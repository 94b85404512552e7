import { Outlet } from 'react-router';

export default function FullscreenLayout() {
  return (
    <main className="flex h-dvh flex-col bg-slate-950 text-slate-100">
      <Outlet />
    </main>
  );
}
