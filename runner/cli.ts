// `replay-push`: the commands of docs/contract.md §7 over the run-folder, outbox and drain modules. This module
// dispatches a command line to its command and maps usage and run-folder errors to exit code 2.
import { dirname, resolve } from 'node:path';
import { checkPairing } from './check.ts';
import { importCommand } from './import/import-command.ts';
import { exactlyOne, parseArguments, USAGE, UsageError } from './cli-arguments.ts';
import { EXIT, visibleIo, type CliIo } from './cli-output.ts';
import { OutboxError } from './outbox.ts';
import { deliverHiddenTest, deliverIssues, runFolders } from './push-commands.ts';
import { RunFolderError } from './run-folder.ts';
import { status } from './status-command.ts';
import { findRunFolders } from './sync.ts';
import { visible } from './untrusted-text.ts';

/** `now`: the clock deliveries are signed by (Date.now when not given). */
export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  terminal: CliIo,
  now?: () => number,
): Promise<number> {
  const io = visibleIo(terminal);
  try {
    const parsed = parseArguments(argv, env);
    const { command, targets } = parsed;
    const settings = { ...parsed.settings, now };
    switch (command) {
      case 'run': {
        const folder = exactlyOne(targets, 'run folder');
        return await runFolders(dirname(folder), [folder], settings, env, io);
      }
      case 'sync': {
        const root = exactlyOne(targets, 'runs root');
        const folders = await findRunFolders(root).catch((error: NodeJS.ErrnoException) => {
          throw new UsageError(`The runs root ${root} cannot be read (${error.code ?? error.message}).`);
        });
        return await runFolders(root, folders, settings, env, io);
      }
      case 'issue':
        return await deliverIssues(targets, settings, env, io);
      case 'hidden-test':
        return await deliverHiddenTest(exactlyOne(targets, 'run folder'), settings, env, io);
      case 'import':
        return await importCommand(targets, settings, env, io);
      case 'help':
        io.out(USAGE);
        return EXIT.delivered;
      case 'status':
        return await status(targets[0] ? resolve(targets[0]) : undefined, settings, io);
      case 'check': {
        if (!settings.endpoint || !settings.host)
          throw new UsageError('check needs --endpoint and --host (or REPLAY_ENDPOINT and REPLAY_HOST).');
        const outcome = await checkPairing(settings.endpoint, settings.host, { keyFile: settings.keyFile, env });
        if (outcome.exitCode === 0) io.out(`replay-push: ${visible(outcome.line)}`);
        else io.err(`replay-push: ${visible(outcome.line)}`);
        return outcome.exitCode;
      }
      default:
        throw new UsageError(`Unknown command "${command}".`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`replay-push: ${visible(error.message)}`);
      io.err(USAGE);
      return EXIT.usage;
    }
    if (error instanceof RunFolderError || error instanceof OutboxError) {
      io.err(`replay-push: ${visible(error.message)}`);
      return EXIT.usage;
    }
    throw error;
  }
}
