// One space, its own reference fixes (issue 24, item 4): the judge caches a merged fix under the space it
// judged for, and `GET …/runs/{id}/reference` reads only its own space's cache, only where the cockpit shows
// fixes, and only for a repository the space still lists. A fresh in-memory world per test.
import { describe, expect, it } from '@jest/globals';
import { cockpitConfig } from '#infra/aws/deployment-config.ts';
import { parseConfig } from '#schema/config.ts';
import { referenceDiffKey } from '#core/storage-layout.ts';
import { BASE, inMemoryJudgeWorld, MERGE } from '../../../helpers/in-memory-judge.ts';
import { storedIssue } from '../../../helpers/records.ts';

const SECRET_FIX = [
  'diff --git a/src/billing.ts b/src/billing.ts',
  '--- a/src/billing.ts',
  '+++ b/src/billing.ts',
  '@@ -1 +1 @@',
  '-const rate = CLIENT_RATES.default;',
  '+const rate = CLIENT_RATES["megacorp-private-discount"];',
  '',
].join('\n');

const config = parseConfig({
  spaces: {
    Private: { senders: ['mac-studio-1'], repos: ['acme/secret'] },
    // The attacker's space lists no repositories, as an open space may.
    Public: { senders: ['mac-mini-2'] },
  },
  cockpits: {
    Team: { space: 'Private' },
    // Shows fixes, so that only the per-space cache stands between it and the private fix.
    Published: { space: 'Public', public: true, showReference: true },
  },
});

const referencePath = (space: string, id: string) => `/api/spaces/${space}/runs/${encodeURIComponent(id)}/reference`;

/** The private space's run judged, so its fix is in the private space's cache. */
async function judgedPrivateRun() {
  const w = inMemoryJudgeWorld(config);
  w.code.setIssue('acme/secret', 7, 'Billing is wrong for one client.').setDiff('acme/secret', BASE, MERGE, SECRET_FIX);
  await w.putIssue('Private', 'secret-7', 'acme/secret', 7);
  const row = await w.putRun({ space: 'Private', taskId: 'secret-7', patch: SECRET_FIX });
  expect(await w.judge(row)).toMatchObject({ result: 'judged' });
  return { w, row };
}

describe("a space's reference fixes", () => {
  it("are cached under the space the judge fetched them for, and served to that space's cockpit", async () => {
    const { w, row } = await judgedPrivateRun();
    expect(await w.objects.list('reference/')).toEqual([referenceDiffKey('Private', 'acme/secret', BASE, MERGE)]);
    const served = await w.read(cockpitConfig(config, 'Team'), referencePath('Private', row.id));
    expect(served).toMatchObject({ status: 200, body: { repo: 'acme/secret', diff: SECRET_FIX } });
  });

  it('are never read by another space whose issue record names the same repository and SHAs', async () => {
    const { w } = await judgedPrivateRun();
    // The public space's host delivers an issue record naming the private repository at the same SHAs,
    // and a run of it that its own judge never fetches a fix for (contaminated: not judged).
    await w.putIssue('Public', 'copycat-1', 'acme/secret', 7);
    const copycat = await w.putRun({ space: 'Public', taskId: 'copycat-1' });
    await w.table.putRun({ ...copycat, judgeState: 'not-needed', judgeVerdict: 'excluded' }, 1);

    const answer = await w.read(cockpitConfig(config, 'Published'), referencePath('Public', copycat.id));
    expect(answer).toMatchObject({ status: 404, body: { error: 'reference-not-fetched' } });
    expect(JSON.stringify(answer.body)).not.toContain('megacorp');
  });

  it('are answered 404 no-reference, saying why, for a task with no issue record or one that names no merged fix', async () => {
    const { w } = await judgedPrivateRun();
    const bare = await w.putRun({ space: 'Private', taskId: 'terminal-task' });
    expect(await w.read(cockpitConfig(config, 'Team'), referencePath('Private', bare.id))).toMatchObject({
      status: 404,
      body: {
        error: 'no-reference',
        message:
          "No issue record names task terminal-task's repository and merged fix: there is no original fix to show.",
      },
    });
    await w.table.putIssue(
      storedIssue(
        { taskId: 'terminal-task', repo: 'acme/secret', baseSha: null, mergeSha: null },
        { space: 'Private' },
      ),
    );
    expect(await w.read(cockpitConfig(config, 'Team'), referencePath('Private', bare.id))).toMatchObject({
      status: 404,
      body: { message: expect.stringMatching(/^The issue record of task terminal-task names no merged fix/) },
    });
  });

  it('are refused with 403 reference-not-shown by a public cockpit that does not say showReference, before anything is read', async () => {
    const { w, row } = await judgedPrivateRun();
    const publishedTeam = parseConfig({
      spaces: { Private: config.spaces.Private },
      cockpits: { Shown: { space: 'Private', public: true } },
    });
    const answer = await w.read(publishedTeam, referencePath('Private', row.id));
    expect(answer).toMatchObject({ status: 403, body: { error: 'reference-not-shown' } });
    expect(answer.body.message).toMatch(/showReference/);
    // Even the run need not exist: the route is closed for this cockpit.
    expect((await w.read(publishedTeam, referencePath('Private', 'no-such-run'))).status).toBe(403);
  });

  it('are refused with 403 repo-not-allowed once the space no longer lists the repository of a stored issue record', async () => {
    const { w, row } = await judgedPrivateRun();
    const narrowed = parseConfig({
      spaces: { Private: { ...config.spaces.Private, repos: ['acme/widgets'] } },
      cockpits: { Team: { space: 'Private' } },
    });
    const answer = await w.read(narrowed, referencePath('Private', row.id));
    expect(answer).toMatchObject({ status: 403, body: { error: 'repo-not-allowed' } });
    expect(JSON.stringify(answer.body)).not.toContain('megacorp');
  });
});
