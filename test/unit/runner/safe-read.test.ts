// The one read replay-push uses for files it did not write (runner/safe-read.ts): plain names inside the
// folder only, no link anywhere below it, a regular file of one hard link, at most the cap, read from the handle.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { readFileSafely, UnsafeFileError } from '#runner/safe-read.ts';
import { tempDir } from '../../helpers/run-folders.ts';

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(UnsafeFileError);
      return (error as UnsafeFileError).reason;
    },
  );

describe('reading a file inside a folder', () => {
  it('reads a regular file up to exactly its cap, and refuses one byte more', async () => {
    const folder = tempDir('safe-read-');
    writeFileSync(join(folder, 'a.txt'), 'x'.repeat(100));
    const read = await readFileSafely(join(folder, 'a.txt'), { within: folder, maxBytes: 100 });
    expect(read?.bytes.toString()).toBe('x'.repeat(100));
    expect(await refusal(readFileSafely(join(folder, 'a.txt'), { within: folder, maxBytes: 99 }))).toBe(
      'is larger than 99 bytes: refused.',
    );
  });

  it('answers null for a file that is not there, and refuses a folder that is not there', async () => {
    const folder = tempDir('safe-read-');
    expect(await readFileSafely(join(folder, 'none.json'), { within: folder, maxBytes: 10 })).toBeNull();
    const gone = join(folder, 'gone');
    expect(await refusal(readFileSafely(join(gone, 'none.json'), { within: gone, maxBytes: 10 }))).toBe(
      `lies in ${gone}, which does not exist: refused.`,
    );
  });

  it('refuses a file of a folder that is itself a link, by itself (a folder swapped after its caller looked)', async () => {
    const elsewhere = tempDir('safe-read-elsewhere-');
    writeFileSync(join(elsewhere, 'result.json'), 'secret');
    const folder = join(tempDir('safe-read-'), 'run');
    symlinkSync(elsewhere, folder);
    expect(await refusal(readFileSafely(join(folder, 'result.json'), { within: folder, maxBytes: 100 }))).toBe(
      `lies in ${folder}, which is a symbolic link: refused, never followed.`,
    );
  });

  it('refuses a name that climbs out of the folder', async () => {
    const folder = join(tempDir('safe-read-'), 'run');
    mkdirSync(folder);
    writeFileSync(join(folder, '..', 'outside.txt'), 'secret');
    const reason = await refusal(readFileSafely(join(folder, '..', 'outside.txt'), { within: folder, maxBytes: 100 }));
    expect(reason).toBe(`is not inside ${folder}: refused.`);
  });

  it('refuses a file under a linked sub-folder, naming the link', async () => {
    const folder = tempDir('safe-read-');
    const elsewhere = tempDir('safe-read-elsewhere-');
    writeFileSync(join(elsewhere, 'secret.txt'), 'secret');
    symlinkSync(elsewhere, join(folder, 'sub'));
    const reason = await refusal(readFileSafely(join(folder, 'sub', 'secret.txt'), { within: folder, maxBytes: 100 }));
    expect(reason).toBe(`lies under a symbolic link (${join(folder, 'sub')}): refused, never followed.`);
  });

  it('reads through plain sub-folders, and through links above the folder itself', async () => {
    const real = tempDir('safe-read-');
    mkdirSync(join(real, 'run', 'sub'), { recursive: true });
    writeFileSync(join(real, 'run', 'sub', 'a.txt'), 'ok');
    const viaLink = join(tempDir('safe-read-link-'), 'runs');
    symlinkSync(real, viaLink);
    const folder = join(viaLink, 'run');
    const read = await readFileSafely(join(folder, 'sub', 'a.txt'), { within: folder, maxBytes: 10 });
    expect(read?.bytes.toString()).toBe('ok');
  });
});

describe('reading a file by its path alone (the key file)', () => {
  it('gives the permission bits of the file it read', async () => {
    const dir = tempDir('safe-read-');
    writeFileSync(join(dir, 'k'), 'key', { mode: 0o640 });
    expect(((await readFileSafely(join(dir, 'k'), { maxBytes: 10 }))!.mode & 0o777).toString(8)).toBe('640');
  });

  it('refuses a device, and a FIFO without waiting for a writer', async () => {
    expect(await refusal(readFileSafely('/dev/null', { maxBytes: 10 }))).toBe(
      'is a device, not a regular file: refused.',
    );
    const fifo = join(tempDir('safe-read-'), 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(readFileSafely(fifo, { maxBytes: 10 }))).toBe('is a FIFO, not a regular file: refused.');
  });

  it('refuses a link as its last component but follows links above it', async () => {
    const dir = tempDir('safe-read-');
    writeFileSync(join(dir, 'k'), 'key');
    symlinkSync(join(dir, 'k'), join(dir, 'link'));
    expect(await refusal(readFileSafely(join(dir, 'link'), { maxBytes: 10 }))).toMatch(/^is a symbolic link: /);
    const viaLink = join(tempDir('safe-read-link-'), 'keys');
    symlinkSync(dir, viaLink);
    expect((await readFileSafely(join(viaLink, 'k'), { maxBytes: 10 }))?.bytes.toString()).toBe('key');
  });
});
