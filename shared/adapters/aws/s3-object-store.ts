import { DeleteObjectCommand, GetObjectCommand, ListObjectsCommand, NoSuchKey, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ObjectStore } from '../../ports.ts';

export class S3ObjectStore implements ObjectStore {
  constructor(private readonly s3: S3Client, private readonly bucket: string) {}

  async put(key: string, body: string | Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    const ContentLength = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    await this.s3.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength }));
  }

  async getText(key: string): Promise<string | null> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await out.Body?.transformToString('utf8')) ?? '';
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async getBytes(key: string): Promise<Uint8Array | null> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await out.Body?.transformToByteArray()) ?? new Uint8Array();
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /**
   * Pages by marker (ListObjects v1) rather than continuation tokens: the same keys from S3, and the local
   * emulator's token cipher is not available on current OpenSSL builds.
   */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const out = await this.s3.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: prefix, Marker: marker }));
      const page = (out.Contents ?? []).map((o) => o.Key!).filter(Boolean);
      keys.push(...page);
      if (!out.IsTruncated || page.length === 0) return keys;
      marker = page[page.length - 1];
    }
  }
}

const isMissing = (e: unknown) => e instanceof NoSuchKey || (e as { name?: string }).name === 'NoSuchKey';
