// What `replay-push` answers: everything the user sees is written through `CliIo`, so tests run the real
// command in-process. Exit codes: 0 all delivered, 1 something still queued, 2 usage / unreadable run folder /
// unusable key file, 3 something rejected; 2 > 3 > 1 when several apply.
import type { Progress } from './progress-bar.ts';
import type { SyncReport } from './sync.ts';
import { visible, visibleLine } from './untrusted-text.ts';

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** Raw text to stderr, for the progress bar (only used when `isTTY`). */
  errRaw(text: string): void;
  isTTY: boolean;
}

/**
 * `io` with every control character of each line made visible but line feeds and tabs (the progress bar's own
 * `errRaw` codes pass): whatever a run folder or an endpoint put in a line, no escape sequence reaches the terminal.
 */
export const visibleIo = (io: CliIo): CliIo => ({
  ...io,
  out: (line) => io.out(visibleLine(line)),
  err: (line) => io.err(visibleLine(line)),
});

export const EXIT = { delivered: 0, queued: 1, usage: 2, rejected: 3 } as const;

/** The exit code of a report: 2 > 3 > 1 > 0. */
export function exitCode(
  report: Pick<SyncReport, 'invalid' | 'keyErrors' | 'anyRejected' | 'rejected' | 'anyQueued'>,
): number {
  if (report.invalid.length || report.keyErrors.length) return EXIT.usage;
  if (report.anyRejected || report.rejected) return EXIT.rejected;
  return report.anyQueued ? EXIT.queued : EXIT.delivered;
}

export const summaryLine = (r: Pick<SyncReport, 'delivered' | 'alreadyAccepted' | 'queued' | 'rejected'>) =>
  `delivered ${r.delivered}, already accepted ${r.alreadyAccepted}, queued ${r.queued}, rejected ${r.rejected}`;

/** Ends the progress bar, then writes the warnings, what failed and the summary; returns the exit code. */
export function finish(report: SyncReport, outboxPath: string, json: boolean, io: CliIo, progress: Progress): number {
  progress.end();
  for (const warning of report.warnings) io.err(`replay-push: warning: ${visible(warning)}`);
  for (const invalid of report.invalid) io.err(`replay-push: ${visible(invalid.message)}`);
  for (const message of report.keyErrors) io.err(`replay-push: ${visible(message)}`);
  for (const u of report.unpaired) {
    io.err(
      `replay-push: ${visible(u.host)} is not paired yet: no key in ${visible(u.source)}. ${u.queued} deliveries wait in ${visible(outboxPath)} ` +
        'and go out on the next run or sync once the key is there.',
    );
  }
  const { delivered, alreadyAccepted, queued, rejected } = report;
  io.out(json ? JSON.stringify({ delivered, alreadyAccepted, queued, rejected }) : summaryLine(report));
  return exitCode(report);
}
