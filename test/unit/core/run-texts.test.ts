// A run's patch and summary are one object (docs/contract.md §4): landing puts it once, the judge gets it once,
// the read API serves either text or both (the run detail's one read) from it; a run landed before, with two objects, still reads without a migration.
import { describe, expect, it, jest } from '@jest/globals';
import { readRunTexts } from '#core/run-texts.ts';
import { RUNS_PREFIX } from '#core/storage-layout.ts';
import { parseConfig } from '#schema/config.ts';
import { REFERENCE_FIX, judgeWorldWithFix } from '../../helpers/in-memory-judge.ts';
import type { InMemoryObjectStore } from '../../helpers/in-memory-ports.ts';

const config = parseConfig({
  defaultJudgeModel: 'claude-test-judge',
  spaces: { S: { senders: ['mac-studio-1'], repos: ['acme/widgets'] } },
  cockpits: { Board: { space: 'S' } },
});

/** The run objects' requests, counted from here on: create-only PUTs (how landing writes) and GETs under `runs/`. */
function runObjectRequests(objects: InMemoryObjectStore) {
  const ofRuns = (calls: unknown[][]) => calls.filter(([key]) => String(key).startsWith(RUNS_PREFIX)).length;
  const putIfAbsent = jest.spyOn(objects, 'putIfAbsent');
  const getText = jest.spyOn(objects, 'getText');
  return () => ({ puts: ofRuns(putIfAbsent.mock.calls), gets: ofRuns(getText.mock.calls) });
}

describe("a run's patch and summary", () => {
  it('land as one object, named by its content under the run', async () => {
    const w = judgeWorldWithFix(config);
    const requests = runObjectRequests(w.objects);
    const message = await w.land('S', { taskId: 't-1' }, { patch: REFERENCE_FIX, summary: 'Guarded the length.' });
    const row = (await w.table.getRun('S', message.id))!.value;
    expect(requests()).toEqual({ puts: 1, gets: 0 });
    expect(row.textsKey).toMatch(/\/texts-[0-9a-f]{64}\.json$/);
    expect(row).toMatchObject({ patchKey: null, summaryKey: null });
    expect(await w.objects.list(RUNS_PREFIX)).toEqual([row.textsKey]);
    expect(await readRunTexts(w.objects, row)).toEqual({ patch: REFERENCE_FIX, summary: 'Guarded the length.' });
  });

  it('are read by the judge with one GET', async () => {
    const w = judgeWorldWithFix(config);
    await w.putIssue('S', 't-1');
    const row = await w.putRun({ space: 'S', taskId: 't-1', summary: 'Guarded the length.' });
    const requests = runObjectRequests(w.objects);
    expect(await w.judge(row)).toMatchObject({ result: 'judged' });
    expect(requests().gets).toBe(1);
    expect(w.model.requests[0]!.prompt).toContain('+return input?.length ?? 0;');
  });

  it('of a run landed before, as two objects, are judged and served as they are', async () => {
    const w = judgeWorldWithFix(config);
    await w.putIssue('S', 't-1');
    const row = await w.putRun({ space: 'S', taskId: 't-1', summary: 'Guarded the length.', twoObjects: true });
    expect(row).toMatchObject({ textsKey: null, patchKey: expect.any(String), summaryKey: expect.any(String) });
    const requests = runObjectRequests(w.objects);
    expect(await w.judge(row)).toMatchObject({ result: 'judged' });
    expect(requests().gets).toBe(2);
    expect(w.model.requests[0]!.prompt).toContain('+return input?.length ?? 0;');
    const base = `/api/spaces/S/runs/${encodeURIComponent(row.id)}`;
    expect(await w.read(config, `${base}/patch`)).toEqual({ status: 200, body: REFERENCE_FIX });
    expect(await w.read(config, `${base}/summary`)).toEqual({ status: 200, body: 'Guarded the length.' });
    // Each text alone is one GET of its own object.
    expect(requests().gets).toBe(4);
  });

  it('are served by the read API from the one object', async () => {
    const w = judgeWorldWithFix(config);
    const row = await w.putRun({ space: 'S', taskId: 't-1', patch: 'diff --git a/f b/f\n+x\n', summary: 'Did x.' });
    const base = `/api/spaces/S/runs/${encodeURIComponent(row.id)}`;
    expect(await w.read(config, `${base}/patch`)).toEqual({ status: 200, body: 'diff --git a/f b/f\n+x\n' });
    expect(await w.read(config, `${base}/summary`)).toEqual({ status: 200, body: 'Did x.' });
  });

  it('are served together by the read API for the run detail: one GET, or one per object for a run landed before', async () => {
    const w = judgeWorldWithFix(config);
    const now = await w.putRun({ space: 'S', taskId: 't-1', patch: 'diff --git a/f b/f\n+x\n', summary: 'Did x.' });
    const before = await w.putRun({ space: 'S', taskId: 't-2', summary: 'Guarded.', twoObjects: true });
    const texts = (row: { id: string }) => w.read(config, `/api/spaces/S/runs/${encodeURIComponent(row.id)}/texts`);
    const requests = runObjectRequests(w.objects);
    expect(await texts(now)).toEqual({ status: 200, body: { patch: 'diff --git a/f b/f\n+x\n', summary: 'Did x.' } });
    expect(requests().gets).toBe(1);
    expect(await texts(before)).toEqual({ status: 200, body: { patch: REFERENCE_FIX, summary: 'Guarded.' } });
    expect(requests().gets).toBe(3);
    expect((await w.read(config, '/api/spaces/S/runs/no-such-run/texts')).status).toBe(404);
  });

  it('answer 404 when the object is missing, as a missing patch did', async () => {
    const w = judgeWorldWithFix(config);
    const row = await w.putRun({ space: 'S', taskId: 't-1' });
    await w.objects.delete(row.textsKey!);
    const answer = await w.read(config, `/api/spaces/S/runs/${encodeURIComponent(row.id)}/patch`);
    expect(answer.status).toBe(404);
    expect(await readRunTexts(w.objects, row)).toEqual({ patch: null, summary: null });
    const texts = await w.read(config, `/api/spaces/S/runs/${encodeURIComponent(row.id)}/texts`);
    expect(texts).toEqual({ status: 200, body: { patch: null, summary: null } });
  });
});
