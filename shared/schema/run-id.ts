// The run id rule on its own, free of zod, so the cockpit can key rows by id without bundling the schemas.
//
// The id is never parsed back, and it is injective all the same (docs/contract.md §2): the model's id form and the
// harness version hold no "__", the model's does not end with "_" and the harness version does not start with one,
// so the first "__" of an id ends the model and the last one starts the harness version, whatever "__" the task id
// holds (SWE-bench's `owner__repo-123`). Two models whose names differ only by ":" or "/" against "_" still share an
// id form; ingest and landing compare the stored row's run with the delivered one for that (RunIdentity).
// A repeated sample k > 1 appends `__s{k}` (sample 1 keeps the id runs had before samples), and no harness version
// is `s{k}`, so a sample's ending is never read as a harness version: a task id ending in `__{harness}` run under
// harness `s{k}` would share an id with another run's sample k.

export interface RunIdentity {
  model: string;
  taskId: string;
  harnessVersion: string;
  /** Which of the task's repeated samples (docs/contract.md §2); absent (or null) is 1. */
  sample?: number | null;
}

/** The run's sample number: 1 where none is given (rows landed before samples existed). */
export const sampleOf = (run: { sample?: number | null }) => run.sample ?? 1;

/** The model as the id spells it: every ":" and "/" written "_". */
export const modelIdForm = (model: string) => model.replace(/[:/]/g, '_');

/** The id's ending for a sample: none for sample 1, `__s{k}` otherwise. */
export const sampleSuffix = (sample: number) => (sample === 1 ? '' : `__s${sample}`);

/** `{model}__{taskId}__{harnessVersion}` (then `__s{k}` for sample k > 1), with `:` and `/` in the model replaced by `_`. Never parsed back. */
export function runId(row: RunIdentity): string {
  return `${modelIdForm(row.model)}__${row.taskId}__${row.harnessVersion}${sampleSuffix(sampleOf(row))}`;
}

/** Whether a model's id form keeps the id injective: no "__" in it, and no "_" at its end. */
export const modelKeepsIdsApart = (model: string) => !`${modelIdForm(model)}_`.includes('__');
/** Whether a harness version keeps the id injective: no "__" in it, no "_" at its start, and not a sample's `s{k}`. */
export const harnessKeepsIdsApart = (harnessVersion: string) =>
  !`_${harnessVersion}`.includes('__') && !/^s\d+$/.test(harnessVersion);

/** Whether two rows are one run: the same model, task, harness version and sample, not merely the same id. */
export const sameRun = (a: RunIdentity, b: RunIdentity) =>
  a.model === b.model && a.taskId === b.taskId && a.harnessVersion === b.harnessVersion && sampleOf(a) === sampleOf(b);

/** The run's identity alone, as an id-collision answer and record name it. */
export const runIdentity = ({ model, taskId, harnessVersion, sample }: RunIdentity) => ({
  model,
  taskId,
  harnessVersion,
  sample: sampleOf({ sample }),
});

/** `model "qwen3:8b", task "acme__widgets-42", harness "h2"` (then `, sample 3` past the first): one run named in a sentence. */
export const describeRun = (run: RunIdentity) =>
  `model ${JSON.stringify(run.model)}, task ${JSON.stringify(run.taskId)}, harness ${JSON.stringify(run.harnessVersion)}` +
  (sampleOf(run) === 1 ? '' : `, sample ${sampleOf(run)}`);
