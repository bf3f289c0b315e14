// Run in a fresh Node process by the import memory test and bench (large-output-jsonl.ts): one mode, one file,
// then one JSON line on stdout with the process's peak resident memory (maxRSS) and what it read.
//   node --import tsx test/helpers/import-memory-child.ts <import|read|none> <output.jsonl> <import root>
import { importToFolders } from '../../runner/import/import-command.ts';
import { readJsonLines } from '../../runner/import/json-lines.ts';

const [mode, file, root] = process.argv.slice(2) as [string, string, string];
const started = performance.now();
let runs = 0;
let skipped = 0;
if (mode === 'import') {
  const imported = await importToFolders('openhands', [file], root, {});
  runs = imported.folders.length;
  skipped = imported.skipped.length;
} else if (mode === 'read') {
  // The floor: the same lines streamed and parsed, nothing mapped or written.
  for await (const line of readJsonLines(file)) if ('value' in line) runs++;
}
const maxRssMiB = process.resourceUsage().maxRSS / 1024;
console.log(JSON.stringify({ mode, runs, skipped, maxRssMiB, ms: performance.now() - started }));
