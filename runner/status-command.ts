// `replay-push status`: what the outbox holds (queued, rejected, accepted) and each host's last answer, every name
// and answer text with its control characters made visible.
import { existsSync } from 'node:fs';
import { UsageError, type CliSettings } from './cli-arguments.ts';
import { EXIT, type CliIo } from './cli-output.ts';
import { openOutbox, outboxDir } from './push-commands.ts';
import { visible } from './untrusted-text.ts';

export async function status(runsRoot: string | undefined, settings: CliSettings, io: CliIo): Promise<number> {
  const dir = outboxDir(settings, runsRoot);
  if (!existsSync(dir))
    throw new UsageError(`There is no outbox at ${dir}: nothing was ever queued there (or give --outbox).`);
  const outbox = await openOutbox(dir, io);
  const pending = await outbox.pending();
  const rejected = await outbox.rejectedRecords();
  const hosts = [
    ...new Set([...pending.map((p) => p.host), ...rejected.map((r) => r.host), ...Object.keys(outbox.hostStates())]),
  ].sort();
  const perHost = hosts.map((host) => {
    const queued = pending.filter((p) => p.host === host);
    const state = outbox.hostStates()[host];
    return {
      host,
      queued: {
        run: queued.filter((q) => q.kind === 'run').length,
        issue: queued.filter((q) => q.kind === 'issue').length,
        'hidden-test': queued.filter((q) => q.kind === 'hidden-test').length,
      },
      rejected: rejected.filter((r) => r.host === host).length,
      lastAcceptedAt: state?.lastAcceptedAt ?? null,
      lastError: state?.lastError ?? null,
    };
  });
  if (settings.json) {
    io.out(
      JSON.stringify({
        outbox: outbox.dir,
        queued: pending.length,
        rejected: rejected.length,
        accepted: outbox.acceptedCount,
        hosts: perHost,
      }),
    );
    return EXIT.delivered;
  }
  io.out(
    `${visible(outbox.dir)}: ${pending.length} queued, ${rejected.length} rejected, ${outbox.acceptedCount} accepted so far`,
  );
  for (const h of perHost) {
    io.out(
      `  ${visible(h.host)}: queued ${h.queued.run} runs, ${h.queued.issue} issues, ${h.queued['hidden-test']} hidden-test results; ` +
        `rejected ${h.rejected}; last accepted ${h.lastAcceptedAt ?? 'never'}`,
    );
    if (h.lastError) io.out(`    last error ${visible(h.lastError.at)}: ${visible(h.lastError.message)}`);
  }
  for (const r of rejected)
    io.out(
      `  rejected ${r.kind} ${visible(r.id)} (${visible(r.host)}) at ${visible(r.rejectedAt)}: ${r.answer.status} ` +
        `${visible(String(r.answer.body.error ?? ''))}: ${visible(String(r.answer.body.message ?? ''))}`,
    );
  await outbox.close();
  return EXIT.delivered;
}
