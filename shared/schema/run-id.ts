// The run id rule on its own, free of zod, so the cockpit can key rows by id without bundling the schemas.

/** `{model}__{taskId}__{harnessVersion}`, with `:` and `/` in the model replaced by `_`. Never parsed back. */
export function runId(row: { model: string; taskId: string; harnessVersion: string }): string {
  return `${row.model.replace(/[:/]/g, '_')}__${row.taskId}__${row.harnessVersion}`;
}
