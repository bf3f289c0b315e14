// The one way replay-push reads a file it did not write itself: a run folder's files, an issue record, the host key
// (docs/contract.md §7). A run folder is written by a harness running an agent, so a name in it may be a link to
// the host key or ~/.aws/credentials, a FIFO that never answers, or a file too big to hold. The name is opened with
// O_NOFOLLOW (a link is refused, never followed) and O_NONBLOCK (a FIFO cannot hang the open); the open handle must
// be a regular file of one hard link, and at most `maxBytes` are read from that same handle (no second open by
// path). With `within`, the file must also lie inside that folder: the folder exists and is no link itself, plain
// components below it, none of them a link, and after the open the name still leads to the very file
// that was read, in the very folder that was checked.
import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

/** A file refused, with why; the message names the file and never shows any of its content. */
export class UnsafeFileError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'UnsafeFileError';
  }
}

export interface SafeReadOptions {
  maxBytes: number;
  /** The folder the file must lie in (a run folder, the outbox): no link itself, though the path above it may be. */
  within?: string;
}

export interface SafeRead {
  bytes: Buffer;
  /** Permission bits of the file read (for the key file's "readable by others" check). */
  mode: number;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const MIB = 1024 * 1024;
// After the size fstat gave, reads go on in small chunks: usually one empty read (end of file), unless it grew.
const CHUNK_BYTES = 64 * 1024;
const limitOf = (bytes: number) => (bytes % MIB ? `${bytes} bytes` : `${bytes / MIB} MiB`);

function openRefusal(path: string, error: NodeJS.ErrnoException): UnsafeFileError {
  switch (error.code) {
    case 'ELOOP':
    case 'EMLINK':
      return new UnsafeFileError(
        path,
        'is a symbolic link: replay-push reads only regular files, never through a link.',
      );
    case 'ENXIO':
    case 'EOPNOTSUPP':
      return new UnsafeFileError(path, 'is a socket or device, not a regular file: refused.');
    default:
      return new UnsafeFileError(path, `cannot be read (${error.code ?? error.message}).`);
  }
}

function kindOf(stats: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return 'a device';
}

/** The relative name of `path` inside `within`, as plain components going down; refused otherwise. */
function componentsInside(path: string, within: string): string[] {
  const name = relative(within, path);
  const parts = name.split(sep);
  if (!name || isAbsolute(name) || parts.some((p) => p === '..' || p === '.' || p === ''))
    throw new UnsafeFileError(path, `is not inside ${within}: refused.`);
  return parts;
}

async function readCapped(handle: FileHandle, expected: number, maxBytes: number, path: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  // One more byte than allowed: a file that grew past the cap after fstat is caught by the read itself.
  let room = Math.min(expected, maxBytes) + 1;
  for (;;) {
    const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(room), 0, room, null);
    if (!bytesRead) break;
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw new UnsafeFileError(path, `is larger than ${limitOf(maxBytes)}: refused.`);
    room = Math.min(CHUNK_BYTES, maxBytes + 1 - total);
  }
  return Buffer.concat(chunks, total);
}

/** The file's bytes, or null when it does not exist; an UnsafeFileError for anything but a regular file in bounds. */
export async function readFileSafely(path: string, options: SafeReadOptions): Promise<SafeRead | null> {
  let opened = path;
  let folder: string | null = null;
  let folderStats: Stats | null = null;
  if (options.within !== undefined) {
    const within = options.within;
    const parts = componentsInside(path, within);
    const cannot = (error: NodeJS.ErrnoException) => {
      throw new UnsafeFileError(
        path,
        error.code === 'ENOENT'
          ? `lies in ${within}, which does not exist: refused.`
          : `cannot be read (${error.code ?? error.message}).`,
      );
    };
    // The folder itself is no link (the path above it may pass through links): checked here, at each read, so
    // a folder swapped for a link after its caller looked at it is refused all the same.
    folderStats = await lstat(within).catch(cannot);
    if (folderStats.isSymbolicLink())
      throw new UnsafeFileError(path, `lies in ${within}, which is a symbolic link: refused, never followed.`);
    const [real, parent] = await Promise.all([realpath(within), realpath(dirname(within))]).catch(cannot);
    if (real !== join(parent, basename(within)))
      throw new UnsafeFileError(path, `lies in ${within}, which changed while it was being opened: refused.`);
    folder = real;
    // Every folder between the run folder and the file: a real directory, never a link out of it.
    for (let i = 1; i < parts.length; i++) {
      const dir = join(folder, ...parts.slice(0, i));
      const stats = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw new UnsafeFileError(path, `cannot be read (${error.code ?? error.message}).`);
      });
      if (!stats) return null;
      if (stats.isSymbolicLink())
        throw new UnsafeFileError(path, `lies under a symbolic link (${dir}): refused, never followed.`);
      if (!stats.isDirectory()) return null;
    }
    opened = join(folder, ...parts);
  }

  let handle: FileHandle;
  try {
    handle = await open(opened, READ_FLAGS);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw openRefusal(path, error as NodeJS.ErrnoException);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new UnsafeFileError(path, `is ${kindOf(stats)}, not a regular file: refused.`);
    if (stats.size > options.maxBytes)
      throw new UnsafeFileError(path, `is larger than ${limitOf(options.maxBytes)}: refused.`);
    // A second name for another file (a secret's) would pass every check of the name: refused everywhere.
    if (stats.nlink > 1)
      throw new UnsafeFileError(path, `has ${stats.nlink} hard links: replay-push reads a file only by its one name.`);
    if (folder !== null) {
      // A folder on the way (or the folder itself) swapped for a link between the checks and the open shows here.
      const [now, folderNow, folderPath] = await Promise.all([
        lstat(opened).catch(() => null),
        lstat(options.within!).catch(() => null),
        realpath(options.within!).catch(() => null),
      ]);
      const sameFolder =
        folderNow !== null &&
        !folderNow.isSymbolicLink() &&
        folderNow.dev === folderStats!.dev &&
        folderNow.ino === folderStats!.ino &&
        folderPath === folder;
      if (!now || now.dev !== stats.dev || now.ino !== stats.ino || !sameFolder)
        throw new UnsafeFileError(path, 'changed while it was being opened: refused.');
    }
    return { bytes: await readCapped(handle, stats.size, options.maxBytes, path), mode: stats.mode };
  } catch (error) {
    if (error instanceof UnsafeFileError) throw error;
    throw new UnsafeFileError(
      path,
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
    );
  } finally {
    await handle.close();
  }
}
