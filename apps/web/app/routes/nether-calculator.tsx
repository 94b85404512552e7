import { convertCoordinates, teleportCommand, type Dimension } from '@spawnpoint/contracts';
import { useState } from 'react';
import { pageMeta } from '../lib/meta.ts';
import { notify } from '../lib/toasts.ts';

export const meta = () =>
  pageMeta(
    'tools-nether-portal-calculator',
    'Convert Minecraft coordinates between the Overworld and the Nether to link nether portals exactly, with a ready /tp command.',
  );

const field = 'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 font-mono';

export default function NetherCalculator() {
  const [from, setFrom] = useState<Dimension>('overworld');
  const [coords, setCoords] = useState({ x: '800', y: '64', z: '-320' });
  const numbers = { x: Number(coords.x), y: Number(coords.y), z: Number(coords.z) };
  const valid = Object.values(coords).every((v) => v.trim() !== '' && Number.isFinite(Number(v)));
  const result = valid ? convertCoordinates(from, numbers) : null;
  const command = result ? teleportCommand(result) : '';

  return (
    <main className="mx-auto max-w-3xl px-4 py-12">
      <h1 className="text-4xl font-extrabold">Nether portal calculator</h1>
      <p className="mt-3 text-lg text-slate-600">
        Type the coordinates of a portal and see where its partner belongs in the other dimension. One block in the Nether is eight in the
        Overworld.
      </p>

      <form className="mt-8 rounded-xl border border-slate-200 bg-white p-6" onSubmit={(e) => e.preventDefault()}>
        <fieldset>
          <legend className="text-sm font-medium text-slate-700">I am in</legend>
          <div className="mt-2 flex gap-4">
            {(['overworld', 'nether'] as const).map((d) => (
              <label key={d} className="flex items-center gap-2">
                <input type="radio" name="from" value={d} checked={from === d} onChange={() => setFrom(d)} />
                {d === 'overworld' ? 'the Overworld' : 'the Nether'}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="mt-4 grid grid-cols-3 gap-3">
          {(['x', 'y', 'z'] as const).map((axis) => (
            <div key={axis}>
              <label htmlFor={`coord-${axis}`} className="block text-sm font-medium uppercase text-slate-700">
                {axis}
              </label>
              <input
                id={`coord-${axis}`}
                inputMode="numeric"
                className={field}
                value={coords[axis]}
                onChange={(e) => setCoords((c) => ({ ...c, [axis]: e.target.value }))}
              />
            </div>
          ))}
        </div>
      </form>

      <section aria-live="polite" className="mt-6 rounded-xl bg-slate-900 p-6 text-white" data-testid="nether-result">
        {result ? (
          <>
            <p className="text-sm uppercase tracking-wide text-slate-300">
              Build the portal in {result.dimension === 'nether' ? 'the Nether' : 'the Overworld'} at
            </p>
            <p className="mt-2 font-mono text-3xl font-bold">
              X {result.x} · Y {result.y} · Z {result.z}
            </p>
            <div className="mt-4 flex flex-wrap items-center gap-3">
              <code className="rounded bg-slate-800 px-3 py-2 font-mono text-sm" data-testid="nether-command">
                {command}
              </code>
              <button
                type="button"
                className="rounded-md bg-brand-600 px-3 py-2 text-sm font-semibold hover:bg-brand-700"
                onClick={() => void navigator.clipboard.writeText(command).then(() => notify('success', 'Copied', command))}
              >
                Copy
              </button>
            </div>
          </>
        ) : (
          <p>Enter whole numbers for X, Y and Z.</p>
        )}
      </section>

      <section className="prose mt-10 max-w-none space-y-4 text-slate-700">
        <h2 className="text-2xl font-bold text-slate-900">How portals link</h2>
        <p>
          When you go through a portal, the game divides your X and Z by 8 (into the Nether) or multiplies them by 8 (back to the
          Overworld), then looks for an existing portal near that spot. In the Nether it searches 16 blocks around it; in the Overworld 128
          blocks. If it finds none, it builds a new portal, which is why two portals that are close together in the Overworld often lead to
          the same Nether portal.
        </p>
        <p>
          To link two portals reliably, build the second one at exactly the coordinates above. Height does not scale: Y stays the same, kept
          inside the dimension (1 to 126 in the Nether, −64 to 319 in the Overworld).
        </p>
        <p>
          Tip: build a Nether hub. Because of the 1:8 scale, a 100-block tunnel in the Nether covers 800 blocks in the Overworld — fast
          travel between your bases.
        </p>
      </section>
    </main>
  );
}
