// Downloads too large for one Lambda answer: the bytes go to the data bucket and the caller gets a presigned GET
// link (SigV4 query authentication, by the SDK's presigner) that names the file it saves as.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { LinkedDownloads } from '#core/ports.ts';

export class S3LinkedDownloads implements LinkedDownloads {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async publish(key: string, body: Uint8Array, contentType: string, filename: string, seconds: number) {
    const disposition = `attachment; filename="${filename}"`;
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: body,
        ContentType: contentType,
        ContentDisposition: disposition,
      }),
    );
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: seconds });
  }

  /**
   * Puts the files at `paths`, one after another, at `key` as one object, streamed from disk (an engine's export:
   * never held in memory, nor written again to join its pieces). Its CRC32 is worked out first, so the SDK sends
   * the body as it is rather than in aws-chunked framing with a trailing checksum, which S3 reads but the local
   * emulator would store as part of the object.
   */
  async putFile(key: string, paths: readonly string[]): Promise<void> {
    let size = 0;
    let crc = 0;
    for (const path of paths) {
      size += (await stat(path)).size;
      for await (const chunk of createReadStream(path)) crc = crc32(chunk as Buffer, crc);
    }
    const checksum = Buffer.alloc(4);
    checksum.writeUInt32BE(crc);
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: Readable.from(piecesOf(paths)),
        ContentLength: size,
        ChecksumCRC32: checksum.toString('base64'),
      }),
    );
  }

  link(key: string, contentType: string, filename: string, seconds: number) {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: `attachment; filename="${filename}"`,
    });
    return getSignedUrl(this.s3, command, { expiresIn: seconds });
  }
}

/** The bytes of the files at `paths`, one file after another. */
async function* piecesOf(paths: readonly string[]): AsyncGenerator<Buffer> {
  for (const path of paths) for await (const chunk of createReadStream(path)) yield chunk as Buffer;
}
