// Objects in one S3 bucket through the SDK's S3 client. Writes that must not replace another writer's object
// are conditional (S3's `If-None-Match: *` and `If-Match: <etag>`): a write that loses its race reports so,
// and its caller reads what won instead of overwriting it.
import { setTimeout } from 'node:timers/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { AWS_CALLS, type AwsCallTimeouts } from '#core/operations.ts';
import type { ObjectStore } from '#core/ports.ts';
import { clientSettings, errorNameOf, statusOf, withinDeadline, type AwsConnection } from './sdk-settings.ts';

/** An S3 client; on a configured endpoint (an emulator) buckets are addressed by path, as emulators expect. */
export const s3Client = (connection: AwsConnection, timeouts: AwsCallTimeouts = AWS_CALLS.standard): S3Client =>
  new S3Client({
    ...clientSettings(connection, 's3', timeouts),
    forcePathStyle: connection.endpoints?.s3 !== undefined,
  });

/**
 * How often a create-only write that met a concurrent one (409) is tried, and the pause before the next try
 * (doubling): S3 answers 409 only while the other write is under way.
 */
const CONFLICT_ATTEMPTS = 4;
const CONFLICT_PAUSE_MS = 50;

export class S3ObjectStore implements ObjectStore {
  /** `listPageSize`: keys per ListObjects page (S3's own default, 1,000, when absent). */
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly timeouts: AwsCallTimeouts = AWS_CALLS.standard,
    private readonly options: { listPageSize?: number } = {},
  ) {}

  async put(key: string, body: string | Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    await this.putObject(key, body, contentType, {});
  }

  async putIfAbsent(key: string, body: string | Uint8Array, contentType = 'application/octet-stream') {
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.conditionalPut(key, body, contentType, { IfNoneMatch: '*' });
      if (outcome !== 'conflict') return outcome === 'written';
      // Another conditional write of the key was under way. Tried again, the key is taken (412) or still free;
      // never read to find out, as the writer's role may only write it (ingest's inbox, the lander's texts).
      if (attempt === CONFLICT_ATTEMPTS)
        throw new Error(`Writing ${key} met a concurrent write ${attempt} times in a row.`);
      await setTimeout(CONFLICT_PAUSE_MS * 2 ** (attempt - 1));
    }
  }

  async putIfMatch(
    key: string,
    body: string | Uint8Array,
    etag: string | null,
    contentType = 'application/octet-stream',
  ): Promise<boolean> {
    if (etag === null) return this.putIfAbsent(key, body, contentType);
    // Any refusal (412, a concurrent write's 409, or 404 when the object was deleted meanwhile) means
    // someone else wrote it since `etag` was read.
    return (await this.conditionalPut(key, body, contentType, { IfMatch: etag })) === 'written';
  }

  async getText(key: string): Promise<string | null> {
    const found = await this.getWithEtag(key);
    return found && Buffer.from(found.bytes.buffer, found.bytes.byteOffset, found.bytes.byteLength).toString('utf8');
  }

  async getBytes(key: string): Promise<Uint8Array | null> {
    return (await this.getWithEtag(key))?.bytes ?? null;
  }

  async getWithEtag(key: string): Promise<{ bytes: Uint8Array; etag: string } | null> {
    try {
      return await withinDeadline(`S3 GetObject ${key}`, this.timeouts, async (options) => {
        const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), options);
        return { bytes: (await out.Body?.transformToByteArray()) ?? new Uint8Array(), etag: out.ETag ?? '' };
      });
    } catch (error) {
      if (errorNameOf(error) === 'NoSuchKey') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await withinDeadline(`S3 DeleteObject ${key}`, this.timeouts, (options) =>
      this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), options),
    );
  }

  /**
   * Pages by marker (ListObjects v1) rather than continuation tokens: the same keys from S3, and the local
   * emulator's token cipher is not available on current OpenSSL builds.
   */
  async list(prefix: string): Promise<string[]> {
    return (await this.listed(prefix)).map((o) => o.key);
  }

  async listWrittenBefore(prefix: string, before: Date): Promise<string[]> {
    return (await this.listed(prefix)).filter((o) => o.writtenAt < before).map((o) => o.key);
  }

  private async listed(prefix: string): Promise<{ key: string; writtenAt: Date }[]> {
    const objects: { key: string; writtenAt: Date }[] = [];
    let marker: string | undefined;
    for (;;) {
      const out = await withinDeadline(`S3 ListObjects ${prefix}`, this.timeouts, (options) =>
        this.s3.send(
          new ListObjectsCommand({
            Bucket: this.bucket,
            Prefix: prefix,
            Marker: marker,
            MaxKeys: this.options.listPageSize,
          }),
          options,
        ),
      );
      const page = (out.Contents ?? []).flatMap((o) =>
        o.Key === undefined ? [] : [{ key: o.Key, writtenAt: o.LastModified ?? new Date(0) }],
      );
      objects.push(...page);
      if (!out.IsTruncated || page.length === 0) return objects;
      marker = page.at(-1)!.key;
    }
  }

  private async conditionalPut(
    key: string,
    body: string | Uint8Array,
    contentType: string,
    condition: Pick<PutObjectCommandInput, 'IfMatch' | 'IfNoneMatch'>,
  ): Promise<'written' | 'refused' | 'conflict'> {
    try {
      await this.putObject(key, body, contentType, condition);
      return 'written';
    } catch (error) {
      const status = statusOf(error);
      if (status === 412 || (condition.IfMatch && status === 404)) return 'refused';
      if (status === 409) return 'conflict';
      throw error;
    }
  }

  private async putObject(
    key: string,
    body: string | Uint8Array,
    contentType: string,
    condition: Pick<PutObjectCommandInput, 'IfMatch' | 'IfNoneMatch'>,
  ): Promise<void> {
    // The length stated, as S3 wants it: the SDK works it out for a body, but states none for an empty one.
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    const input = { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: length };
    await withinDeadline(`S3 PutObject ${key}`, this.timeouts, (options) =>
      this.s3.send(new PutObjectCommand({ ...input, ...condition }), options),
    );
  }
}
