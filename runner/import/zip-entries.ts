// The entries of a zip archive (an Inspect `.eval` log), read with yauzl one at a time and each within a cap: an entry
// whose declared size is over the cap is never inflated, and one that inflates past the cap (a zip bomb lying
// about its size) is cut off as it streams and refused. Entry names are never used as paths: an absolute name or
// one with `..` (yauzl's own check) refuses the whole archive, which no harness writes so.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { SourceError } from './source-files.ts';

export const MAX_ZIP_ENTRY_BYTES = 64 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 100_000;

export interface ZipEntry {
  name: string;
  /** The entry's bytes, or a SourceError when it is over the cap. */
  read(): Promise<Buffer>;
}

const openZip = (path: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: true, validateEntrySizes: true }, (error, zip) =>
      error ? reject(new SourceError(path, `is not a readable zip archive (${error.message}).`)) : resolve(zip),
    ),
  );

async function readCapped(stream: Readable, path: string, name: string, cap: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let held = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      held += chunk.length;
      if (held > cap) {
        stream.destroy();
        throw new SourceError(path, `entry ${name} inflates past ${cap} bytes: refused.`);
      }
      parts.push(chunk);
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(path, `entry ${name} cannot be read (${(error as Error).message}).`);
  }
  return Buffer.concat(parts, held);
}

/** Each entry of the archive whose name `wanted` accepts, in the archive's order; the others are passed over. */
export async function* zipEntries(
  path: string,
  wanted: (name: string) => boolean,
  cap = MAX_ZIP_ENTRY_BYTES,
): AsyncGenerator<ZipEntry> {
  const zip = await openZip(path);
  if (zip.entryCount > MAX_ZIP_ENTRIES) {
    zip.close();
    throw new SourceError(path, `holds ${zip.entryCount} entries, more than ${MAX_ZIP_ENTRIES}: refused.`);
  }
  try {
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => (cleanup(), resolve(e));
        const onEnd = () => (cleanup(), resolve(null));
        const onError = (error: Error) => (cleanup(), reject(new SourceError(path, `is refused: ${error.message}.`)));
        const cleanup = () => {
          zip.off('entry', onEntry);
          zip.off('end', onEnd);
          zip.off('error', onError);
        };
        zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
        zip.readEntry();
      });
      if (!entry) return;
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName)) continue;
      const name = entry.fileName;
      yield {
        name,
        read: async () => {
          if (entry.uncompressedSize > cap)
            throw new SourceError(path, `entry ${name} is ${entry.uncompressedSize} bytes, over ${cap}: refused.`);
          const stream = await zip.openReadStreamPromise(entry);
          return readCapped(stream, path, name, cap);
        },
      };
    }
  } finally {
    if (zip.isOpen) zip.close();
  }
}
