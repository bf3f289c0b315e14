// An export of hundreds of megabytes put in local mode's bucket (S3LinkedDownloads.putFile, as local mode's
// engine uploads its exports): the S3 emulator streams the object to disk as it arrives. It used to gather the
// whole body in memory and write it only after the last byte, seconds past its one-second idle cut, so the PUT
// ended in "socket hang up" and the export was never there.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { S3LinkedDownloads } from '#adapters/aws/s3-linked-downloads.ts';
import { startTestStores, type TestStores } from '../helpers/emulators.ts';

const SIZE = 384 * 1024 * 1024;
let t: TestStores;
let dir: string;
beforeAll(async () => {
  t = await startTestStores();
  dir = mkdtempSync(join(tmpdir(), 'replay-large-'));
});
afterAll(async () => {
  await t.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('an export of hundreds of megabytes', () => {
  it('is put in the local bucket whole, from its pieces one after another', async () => {
    const [head, body] = [join(dir, 'head.json'), join(dir, 'body.json')];
    writeFileSync(head, '{"runs":');
    writeFileSync(body, '');
    truncateSync(body, SIZE); // zeros, without writing them
    const downloads = new S3LinkedDownloads(t.emulators.s3, t.emulators.names.dataBucket);
    await downloads.putFile('exports/S/large.json', [head, body]);
    const stored = await t.emulators.s3.send(
      new HeadObjectCommand({ Bucket: t.emulators.names.dataBucket, Key: 'exports/S/large.json' }),
    );
    expect(stored.ContentLength).toBe(SIZE + '{"runs":'.length);
  }, 120_000);
});
