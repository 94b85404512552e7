import { useEffect, useState } from 'react';
import { ApiFailure } from '../lib/api.ts';
import { disableTwoFactor, enableTwoFactor, getTwoFactorSetup } from '../lib/account.ts';
import { closeDialog } from '../lib/dialogs.ts';
import { notify } from '../lib/toasts.ts';
import { emptyToken } from '../lib/token-input.ts';
import { useSending } from '../lib/use-sending.ts';
import { Button } from './button.tsx';
import { Modal } from './modal.tsx';
import { RecoveryCodeForm, TokenInput } from './token-input.tsx';

export function RecoveryCodes({ codes }: { codes: string[] }) {
  const text = codes.join('\n');
  return (
    <div>
      <ul className="grid grid-cols-2 gap-2 rounded-md bg-slate-50 p-3 font-mono text-sm" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ul>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          type="button"
          onClick={() => void navigator.clipboard.writeText(text).then(() => notify('success', 'Recovery codes copied'))}
        >
          Copy
        </Button>
        <a
          className="inline-flex items-center rounded-md border border-slate-300 px-4 py-2 text-sm font-semibold"
          href={`data:text/plain;charset=utf-8,${encodeURIComponent(text + '\n')}`}
          download="spawnpoint-recovery-codes.txt"
        >
          Download
        </a>
      </div>
    </div>
  );
}

/** QR and secret, six boxes, success view with recovery codes; a wrong code clears the boxes. */
export function EnableTwoFactorDialog({ onDone }: { onDone?: () => void }) {
  const [setup, setSetup] = useState<{ qr: string; secret: string } | null>(null);
  const [digits, setDigits] = useState(emptyToken);
  const [error, setError] = useState<string | null>(null);
  const { sending: busy, send } = useSending();
  const [endOthers, setEndOthers] = useState(true);
  const [codes, setCodes] = useState<string[] | null>(null);

  useEffect(() => {
    getTwoFactorSetup().then(setSetup, () => closeDialog());
  }, []);

  // One code at a time: the six boxes submit themselves when full, and a code is accepted only once.
  const submit = (token: string) =>
    send(async () => {
      setError(null);
      try {
        setCodes(await enableTwoFactor(token, endOthers));
        onDone?.();
      } catch (err) {
        setDigits(emptyToken());
        setError(err instanceof ApiFailure ? err.message : 'Something went wrong. Try again.');
      }
    });

  if (codes) {
    return (
      <Modal title="Two-factor authentication is on">
        <p className="text-slate-600">
          Save these recovery codes somewhere safe. Each signs you in once if you lose your phone. You will not see them again.
        </p>
        <div className="mt-4">
          <RecoveryCodes codes={codes} />
        </div>
        <div className="mt-6 flex justify-end">
          <Button onClick={closeDialog}>I saved them</Button>
        </div>
      </Modal>
    );
  }
  return (
    <Modal title="Turn on two-factor authentication">
      {!setup ? (
        <p role="status">Preparing…</p>
      ) : (
        <div className="space-y-4">
          <p className="text-sm text-slate-600">Scan this code with an authenticator app, then enter the six-digit code it shows.</p>
          <img src={setup.qr} alt="QR code for your authenticator app" className="mx-auto size-44" />
          <p className="text-center text-xs text-slate-500">
            Cannot scan? Enter this key:
            {/* A line of its own: after the words it broke anywhere, down to one letter on the next line. */}
            <code className="mt-1 block select-all break-all font-mono text-sm text-slate-800" data-testid="twofactor-secret">
              {setup.secret}
            </code>
          </p>
          <TokenInput digits={digits} onChange={setDigits} onComplete={(t) => void submit(t)} disabled={busy} />
          {error ? (
            <p role="alert" className="text-center text-sm text-red-600">
              {error}
            </p>
          ) : null}
          <label className="flex items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" checked={endOthers} onChange={(e) => setEndOthers(e.target.checked)} />
            Sign out my other sessions
          </label>
          <div className="flex justify-end">
            <Button variant="secondary" onClick={closeDialog}>
              Cancel
            </Button>
          </div>
        </div>
      )}
    </Modal>
  );
}

export function DisableTwoFactorDialog({ onDone }: { onDone?: () => void }) {
  const [digits, setDigits] = useState(emptyToken);
  const [recovery, setRecovery] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { sending: busy, send } = useSending();

  const submit = (token: string) =>
    send(async () => {
      setError(null);
      try {
        await disableTwoFactor(token);
        notify('success', 'Two-factor disabled');
        onDone?.();
        closeDialog();
      } catch (err) {
        setDigits(emptyToken());
        setError(err instanceof ApiFailure ? err.message : 'Something went wrong. Try again.');
      }
    });

  return (
    <Modal title="Turn off two-factor authentication">
      <p className="text-sm text-slate-600">
        Confirm with a code from your authenticator app{recovery === null ? '' : ' or a recovery code'}.
      </p>
      <div className="mt-4 space-y-4">
        {recovery === null ? (
          <TokenInput digits={digits} onChange={setDigits} onComplete={(t) => void submit(t)} disabled={busy} />
        ) : (
          <RecoveryCodeForm
            id="disable-recovery"
            value={recovery}
            onChange={setRecovery}
            onSubmit={(code) => void submit(code)}
            busy={busy}
            submitLabel="Turn off"
          />
        )}
        {error ? (
          <p role="alert" className="text-center text-sm text-red-600">
            {error}
          </p>
        ) : null}
        <div className="flex justify-between">
          <button
            type="button"
            className="text-sm font-medium text-brand-700 hover:underline"
            onClick={() => setRecovery(recovery === null ? '' : null)}
          >
            {recovery === null ? 'Use a recovery code' : 'Use the app code'}
          </button>
          <Button variant="secondary" onClick={closeDialog}>
            Cancel
          </Button>
        </div>
      </div>
    </Modal>
  );
}
