// Downloads too large for one Lambda answer: the bytes go to the data bucket and the caller gets a presigned GET
// link (SigV4 query authentication, by the SDK's presigner) that names the file it saves as.
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
}
