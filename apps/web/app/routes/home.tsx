import { Link } from 'react-router';
import { buttonClass } from '../components/button.tsx';
import { BlockIsland, GrassGround } from '../components/pixel-art.tsx';
import { pageMeta } from '../lib/meta.ts';

/** Prerendered HTML with the small site script instead of the app (root.tsx). */
export const handle = { staticPage: true };

export const meta = () =>
  pageMeta(
    'index',
    'Free Minecraft Java servers, ready in seconds: create one, press Start and join from Minecraft. Console, files and backups, all from your browser.',
  );

const features = [
  {
    title: 'Live console',
    text: 'Watch your server log in colour and run commands from any device, with your command history a key press away.',
  },
  { title: 'Files and properties', text: 'Edit server.properties through a form, browse and edit files, upload worlds by drag and drop.' },
  { title: 'Backups', text: 'Take a backup before you try something risky and restore it in one click. Lock the ones you want to keep.' },
  { title: 'Public server list', text: 'List your server for everyone to find, with its version, live state and players.' },
  {
    title: 'Safe by design',
    text: 'Each server keeps to its own folder and disk: what one server holds can never reach another, or the machine it runs on.',
  },
  { title: 'Your own server name', text: 'Every server gets a unique name and an address your friends can join.' },
  {
    title: 'Sleeps when nobody plays',
    text: 'An empty server saves and stops by itself, and the next friend who joins by its name wakes it up in a few seconds.',
  },
  {
    title: 'Friends as co-owners',
    text: 'Invite friends as viewers, moderators or administrators, with only the access you give them.',
  },
  { title: 'Players', text: 'Operators, whitelist and bans from the browser, applied at once while the server runs.' },
  {
    title: 'Plugins',
    text: 'Homes, teleport requests, kits and more for the built-in server; Modrinth and Hangar plugins for Paper, installed with a click.',
  },
  { title: 'Paid plans', text: 'More player slots, memory and backups for a server when your community grows, month by month.' },
];

// Said plainly so nobody signs up for what is not there yet (each arrives with its own release).
const steps = [
  { title: 'Create an account', text: 'An email address and a password. Verify the address and you are in.' },
  { title: 'Name your server', text: 'Pick a name, a software and a Minecraft version. Press Create.' },
  {
    title: 'Press Start and join',
    text: "Copy the address shown on your server's page into Minecraft Java Edition and join. Stop it from the same page when you are done.",
  },
];

export default function Home() {
  return (
    <main>
      <section className="bg-gradient-to-b from-slate-900 to-brand-900 text-white">
        <div className="mx-auto grid max-w-6xl items-center gap-10 px-4 pt-20 pb-12 sm:pt-28 md:grid-cols-[minmax(0,1fr)_auto]">
          <div className="min-w-0">
            <p className="text-sm font-semibold uppercase tracking-widest text-brand-100">Minecraft server hosting</p>
            <h1 className="mt-4 max-w-3xl text-4xl leading-tight sm:text-6xl">Your own Minecraft server. Free, and ready in seconds.</h1>
            <p className="mt-6 max-w-2xl text-lg text-slate-200">
              Create a server, press Start and join it from Minecraft Java Edition. The console, your files and backups are in your browser,
              on any device.
            </p>
            <div className="mt-10 flex flex-wrap gap-4">
              <Link to="/register" className={buttonClass('primary', '', 'large')}>
                Create your free server
              </Link>
              <Link
                to="/pricing"
                className="inline-flex items-center rounded-md border border-white/30 px-6 py-3 text-base font-semibold text-white hover:bg-white/10"
              >
                See plans and prices
              </Link>
            </div>
          </div>
          {/* Our own pixel art, drawn from code: no image to download, nothing taken from the game. */}
          <BlockIsland className="hidden w-64 md:block lg:w-80" />
        </div>
        <GrassGround className="block" />
      </section>

      <section aria-labelledby="how-heading" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="how-heading" className="font-pixel text-3xl font-bold">
          Playing in three steps
        </h2>
        <ol className="mt-8 grid gap-6 sm:grid-cols-3">
          {steps.map((step, i) => (
            <li key={step.title} className="rounded-xl border border-slate-200 bg-white p-6">
              <span className="flex size-8 items-center justify-center rounded-full bg-brand-600 font-bold text-white" aria-hidden="true">
                {i + 1}
              </span>
              <h3 className="mt-4 font-semibold">{step.title}</h3>
              <p className="mt-2 text-slate-600">{step.text}</p>
            </li>
          ))}
        </ol>
      </section>

      <section aria-labelledby="features-heading" className="bg-white">
        <div className="mx-auto max-w-6xl px-4 py-16">
          <h2 id="features-heading" className="font-pixel text-3xl font-bold">
            Everything a server owner needs, in the browser
          </h2>
          <ul className="mt-8 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {features.map((feature) => (
              <li key={feature.title} className="rounded-xl bg-slate-50 p-6">
                <h3 className="font-semibold">{feature.title}</h3>
                <p className="mt-2 text-slate-600">{feature.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section aria-labelledby="plans-heading" className="mx-auto max-w-6xl px-4 py-16">
        <div className="rounded-2xl bg-brand-50 p-8 sm:p-12">
          <h2 id="plans-heading" className="font-pixel text-3xl font-bold">
            Free to start. Upgrade when you grow.
          </h2>
          <p className="mt-4 max-w-2xl text-slate-700">
            The free plan is made for playing with friends. Paid plans give a server more player slots, memory and backups, month by month
            from your balance.
          </p>
          <Link to="/pricing" className={buttonClass('primary', 'mt-8')}>
            Compare plans
          </Link>
        </div>
      </section>
    </main>
  );
}
