// `npm run reassign -- <space> <runId> <host>` (issue 35, item 4): the operator's command finds the table in the
// deployment's outputs and gives the run to the host named; a wrong space, host, run or missing argument is one
// sentence (an OperatorError: exit 2), never a stack trace.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parseReassignArgs, reassign } from '#infra/aws/operator/reassign.ts';
import { OperatorError } from '#infra/aws/operator/operator-command.ts';
import { InMemoryObjectStore, InMemoryTable } from '../../../../helpers/in-memory-ports.ts';
import { runRow } from '../../../../helpers/records.ts';

function deployment() {
  const dir = mkdtempSync(join(tmpdir(), 'replay-reassign-'));
  const config = join(dir, 'replay.config.json');
  const outputs = join(dir, 'cdk-outputs.json');
  writeFileSync(config, JSON.stringify({ spaces: { Main: { senders: ['mac-studio-1', 'mac-mini-2'] } } }));
  writeFileSync(
    outputs,
    JSON.stringify({ 'ReplayBench-State': { TableName: 'replay-table', DataBucketName: 'replay-data' } }),
  );
  return { config, outputs };
}

describe('npm run reassign', () => {
  it('gives the run to the host named, in the table the outputs name, and says so', async () => {
    const { config, outputs } = deployment();
    const table = new InMemoryTable();
    const row = { ...runRow({ host: 'mac-mini-2' }), space: 'Main' };
    await table.putRun(row, null);
    // mac-studio-1's own run of it, landed after and kept apart as foreign.
    const studioRun = { ...runRow({ host: 'mac-studio-1' }), space: 'Main' };
    await table.archiveAttempt({ ...studioRun, archivedAt: '2026-11-20T11:00:00.000Z', foreign: true });
    const opened: unknown[] = [];
    const data = new InMemoryObjectStore();
    const args = parseReassignArgs(['Main', row.id, 'mac-studio-1', '--config', config, '--outputs', outputs]);
    const said = await reassign(args, (names) => (opened.push(names), { table, data }));
    expect(said).toMatch(/now belongs to mac-studio-1/);
    expect(opened).toEqual([{ tableName: 'replay-table', dataBucketName: 'replay-data' }]);
    expect((await table.getRun('Main', row.id))!.value.host).toBe('mac-studio-1');
    expect(await reassign(args, () => ({ table, data }))).toMatch(/already belongs to mac-studio-1; nothing changed/);
  });

  it('answers a wrong host, a missing run or missing arguments with one sentence', async () => {
    const { config, outputs } = deployment();
    const table = new InMemoryTable();
    const run = (argv: string[]) =>
      reassign(parseReassignArgs([...argv, '--config', config, '--outputs', outputs]), () => ({
        table,
        data: new InMemoryObjectStore(),
      }));
    await expect(run(['Main', 'x__y__z', 'mac-stranger-9'])).rejects.toThrow(OperatorError);
    await expect(run(['Main', 'x__y__z', 'mac-studio-1'])).rejects.toThrow(/no run "x__y__z" in space Main/);
    expect(() => parseReassignArgs(['Main'])).toThrow(/Name a space, a run id and a host/);
  });
});
