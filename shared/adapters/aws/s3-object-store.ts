// Objects in one S3 bucket, over S3's REST API through the signed client (aws-client.ts): the bucket is
// addressed by host name in AWS and by path on the emulator.
import type { ObjectStore } from '../../ports.ts';
import { AwsCallError, uriEncode, type AwsClient, type AwsRequest, type AwsResponse } from './aws-client.ts';

export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly s3: AwsClient,
    private readonly bucket: string,
    private readonly pathStyle: boolean,
  ) {}

  async put(key: string, body: string | Uint8Array, contentType = 'application/octet-stream'): Promise<void> {
    await this.send({ method: 'PUT', ...this.location(key), headers: { 'content-type': contentType }, body });
  }

  async getText(key: string): Promise<string | null> {
    return (await this.getBytes(key))?.toString('utf8') ?? null;
  }

  async getBytes(key: string): Promise<Buffer | null> {
    try {
      return (await this.send({ method: 'GET', ...this.location(key) })).body;
    } catch (e) {
      if (e instanceof AwsCallError && e.name === 'NoSuchKey') return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    await this.send({ method: 'DELETE', ...this.location(key) });
  }

  /**
   * Pages by marker (ListObjects v1) rather than continuation tokens: the same keys from S3, and the local
   * emulator's token cipher is not available on current OpenSSL builds.
   */
  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let marker: string | undefined;
    for (;;) {
      const { body } = await this.send({ method: 'GET', ...this.location(''), query: { prefix, marker } });
      const xml = body.toString('utf8');
      const page = [...xml.matchAll(/<Contents>[\s\S]*?<Key>([\s\S]*?)<\/Key>/g)].map((m) => xmlText(m[1]!));
      keys.push(...page);
      if (!/<IsTruncated>true<\/IsTruncated>/.test(xml) || page.length === 0) return keys;
      marker = page[page.length - 1];
    }
  }

  /** `/bucket/key` on the emulator; `bucket.` before the host name and `/key` in AWS. */
  private location(key: string): Pick<AwsRequest, 'hostPrefix' | 'path'> {
    const path = `/${key.split('/').map(uriEncode).join('/')}`;
    return this.pathStyle ? { path: `/${this.bucket}${key ? path : ''}` } : { hostPrefix: `${this.bucket}.`, path };
  }

  private send(request: AwsRequest): Promise<AwsResponse> {
    return this.s3.send(request, s3Error);
  }
}

/** S3 answers errors as `<Error><Code>…</Code><Message>…</Message></Error>`, or with no body at all. */
function s3Error(response: AwsResponse): { code: string; message: string } {
  const xml = response.body.toString('utf8');
  const field = (name: string) => new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)?.[1];
  const code = field('Code') ?? (response.status === 404 ? 'NotFound' : `Http${response.status}`);
  return { code: xmlText(code), message: xmlText(field('Message') ?? `HTTP ${response.status}`) };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character data: the five named entities and numeric character references. */
function xmlText(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number(ref.slice(1)));
    return ENTITIES[ref] ?? whole;
  });
}
