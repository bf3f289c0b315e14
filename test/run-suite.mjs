// @ts-check
// `npm test`: the type check (`npm run typecheck`), the lint (`npm run lint`) and jest (`npm run test:jest`) at
// once rather than one after the other. The type check and the lint are single-threaded and jest's last test files
// leave a core idle, so run side by side they fill the two cores instead of taking turns on one. Jest's output
// streams as it runs; each check's is printed whole when it ends. Arguments go to jest (`npm test -- test/unit`).
// Every step runs to its end; the exit status is 1 if any failed, and the last line names those.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Runs an npm script; its output is streamed, or printed whole when it ends. Resolves to its exit status.
 * @param {string} script
 * @param {string[]} args
 * @param {boolean} streamed
 * @returns {Promise<number>}
 */
function npmScript(script, args, streamed) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', script, '--', ...args], {
      cwd: root,
      stdio: streamed ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      if (!streamed) process.stdout.write(`${output}${script}: ${code === 0 ? 'clean' : 'failed'}\n`);
      resolve(code ?? 1);
    });
  });
}

const steps = {
  typecheck: npmScript('typecheck', [], false),
  lint: npmScript('lint', [], false),
  jest: npmScript('test:jest', process.argv.slice(2), true),
};
const failed = [];
for (const [name, step] of Object.entries(steps)) if ((await step) !== 0) failed.push(name);
if (failed.length) console.error(`npm test failed: ${failed.join(', ')}`);
process.exitCode = failed.length ? 1 : 0;
