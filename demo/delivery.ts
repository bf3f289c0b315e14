// Delivering a demo campaign as a runner host would: `replay-run/1` folders, then replay-push's sync core.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Outbox } from '#runner/outbox.ts';
import { syncRunFolders, type SyncReport } from '#runner/sync.ts';
import { RUN_FOLDER_FORMAT } from '#schema/run-folder.ts';
import type { DemoCampaign } from './campaign.ts';

/**
 * Writes every run as a `replay-run/1` folder (result.json last, as a harness does): the row's figures
 * in result.json (they win over what replay-push would derive, and say `metricsSource: "generated"`),
 * the patch (or `patchRecorded: false` where the source recorded none), the summary, the task's issue record and the hidden-test result.
 */
export function writeCampaignFolders(campaign: DemoCampaign, runsRoot: string): string[] {
  const issueOf = new Map(campaign.issues.map((i) => [i.taskId as string, i]));
  return campaign.runs.map((run) => {
    const folder = join(runsRoot, run.id);
    mkdirSync(folder, { recursive: true });
    const { row, patch, summary } = run.delivery as {
      row: Record<string, unknown>;
      patch: string | null;
      summary: string;
    };
    // A source that recorded no patch (Terminal-Bench's trials) says so, rather than leaving an empty diff.
    if (patch !== null) writeFileSync(join(folder, 'candidate.diff'), patch);
    writeFileSync(join(folder, 'summary.md'), summary);
    // A task that is no GitHub issue (Terminal-Bench's) has no issue record.
    const issue = issueOf.get(row.taskId as string);
    if (issue) writeFileSync(join(folder, 'task.json'), JSON.stringify(issue));
    writeFileSync(join(folder, 'hidden-tests.json'), JSON.stringify(run.hiddenTest.hiddenTestResult));
    const recorded = patch === null ? { patchRecorded: false } : {};
    writeFileSync(join(folder, 'result.json'), JSON.stringify({ format: RUN_FOLDER_FORMAT, ...row, ...recorded }));
    return folder;
  });
}

export interface DeliveredCounts {
  issues: number;
  runs: number;
  hiddenTests: number;
}

/** What the endpoint answered, by kind of delivery: accepted (202, or already accepted) and rejected. */
export interface DeliveryAnswers {
  accepted: DeliveredCounts;
  rejected: DeliveredCounts;
}

/**
 * Delivers the campaign's run folders with replay-push's sync core: the outbox under the runs root, keys
 * found as on a runner host (environment, then REPLAY_KEYS_DIR). An endpoint that keeps refusing (a
 * wrong key, an unlisted sender) fails after `retryForMs` with the last answer.
 */
export async function deliverCampaign(
  runsRoot: string,
  folders: string[],
  options: { endpoint: string; keysDir: string; retryForMs?: number; onProgress?: (answers: DeliveryAnswers) => void },
): Promise<{ answers: DeliveryAnswers; report: SyncReport }> {
  const answers: DeliveryAnswers = {
    accepted: { issues: 0, runs: 0, hiddenTests: 0 },
    rejected: { issues: 0, runs: 0, hiddenTests: 0 },
  };
  const counter = { issue: 'issues', run: 'runs', 'hidden-test': 'hiddenTests' } as const;
  const outbox = await Outbox.open(join(runsRoot, '.replay-outbox'));
  try {
    const report = await syncRunFolders(outbox, folders, runsRoot, {
      endpoint: options.endpoint,
      env: { ...process.env, REPLAY_KEYS_DIR: options.keysDir },
      retryForMs: options.retryForMs ?? 15_000,
      onEvent: (event) => {
        if (event.type !== 'accepted' && event.type !== 'rejected') return;
        answers[event.type][counter[event.entry.kind]]++;
        options.onProgress?.(answers);
      },
    });
    const problems = [
      ...report.invalid.map((e) => e.message),
      ...report.keyErrors,
      ...report.unpaired.map((u) => `${u.host} has no key in ${u.source}`),
    ];
    if (problems.length) throw new Error(`The demo's run folders could not all be delivered: ${problems.join('; ')}.`);
    if (report.anyQueued) {
      const errors = Object.entries(outbox.hostStates()).flatMap(([host, state]) =>
        state.lastError ? [`${host}: ${state.lastError.message}`] : [],
      );
      throw new Error(
        `The endpoint did not accept every delivery within ${((options.retryForMs ?? 15_000) / 1000).toFixed(0)} s ` +
          `(${errors.join('; ')}); they wait in ${outbox.dir}.`,
      );
    }
    return { answers, report };
  } finally {
    await outbox.close();
  }
}
