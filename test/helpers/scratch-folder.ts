// Each run of a suite writes its temporary files (CDK's cdk.out folders, run folders, keys, local modes) under one
// folder of its own, removed when the run ends: files that forget to clean up, and processes a failing test leaves
// behind, no longer fill the machine's temporary folder run after run. The global setup points TMPDIR there
// before jest starts its workers, so they and every process they start inherit it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Jest loads the setup and the teardown as modules of their own: what the first made, the second finds here.
const SCRATCH = Symbol.for('replay-bench.scratch-folder');
const state = globalThis as { [SCRATCH]?: { dir: string; previous: string | undefined } };

export function useScratchFolder(): void {
  const dir = mkdtempSync(join(tmpdir(), 'replay-tests-'));
  state[SCRATCH] = { dir, previous: process.env.TMPDIR };
  process.env.TMPDIR = dir;
}

export function removeScratchFolder(): void {
  const scratch = state[SCRATCH];
  if (!scratch) return;
  if (scratch.previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = scratch.previous;
  rmSync(scratch.dir, { recursive: true, force: true });
  delete state[SCRATCH];
}
