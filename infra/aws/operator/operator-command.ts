// What every operator script shares: a refusal is one sentence on stderr and exit 2, never a stack trace;
// an AWS error is named with its message and exits 1.
export class OperatorError extends Error {}

export async function runOperatorCommand(command: () => Promise<string>): Promise<void> {
  try {
    console.log(await command());
  } catch (e) {
    if (e instanceof OperatorError) {
      console.error(e.message);
      process.exitCode = 2;
      return;
    }
    const error = e as Error;
    console.error(`${error.name}: ${error.message}`);
    process.exitCode = 1;
  }
}
