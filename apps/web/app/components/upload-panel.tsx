import { formatBytes } from '../lib/servers.ts';
import { formatTimeLeft } from '../lib/upload-eta.ts';
import type { UploadProgress } from '../lib/use-uploads.ts';
import { Button } from './button.tsx';

/**
 * The upload under way on the files page: which file, bytes sent of all, speed and time left, a progress
 * bar, and Cancel (aborts the request being sent, so the server keeps nothing of that file, and sends no more).
 */
export function UploadPanel({ upload, onCancel }: { upload: UploadProgress; onCancel: () => void }) {
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-start justify-between gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          {/* Only the file being sent is announced: the figures below change many times a second. */}
          <p role="status" aria-live="polite" className="text-sm wrap-anywhere">
            {upload.phase === 'checking'
              ? 'Checking which names are in use…'
              : `Uploading ${upload.current} (${upload.done + 1} of ${upload.files})`}
          </p>
          {upload.phase === 'sending' ? (
            <p className="mt-1 text-xs tabular-nums text-slate-600" data-testid="upload-figures">
              {/* Each figure stays on one line; the line breaks between them on a phone. */}
              <span className="whitespace-nowrap">
                {formatBytes(upload.loaded)} of {formatBytes(upload.total)}
              </span>
              {upload.speed !== null ? (
                <>
                  {' · '}
                  <span className="whitespace-nowrap">{formatBytes(Math.round(upload.speed))}/s</span>
                </>
              ) : null}
              {' · '}
              <span className="whitespace-nowrap">{formatTimeLeft(upload.secondsLeft)}</span>
            </p>
          ) : null}
        </div>
        <Button variant="secondary" className="shrink-0" onClick={onCancel}>
          Cancel upload
        </Button>
      </div>
      <progress className="mt-3 h-2 w-full accent-brand-600" max={upload.total || 1} value={upload.loaded} aria-label="Upload progress" />
    </div>
  );
}
