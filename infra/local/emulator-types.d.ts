// Minimal typings for the two emulators that ship none; only what local mode uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: {
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }): Server;
}

declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: { port?: number; address?: string; directory: string; silent?: boolean });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** s3rver is a Koa application: its request handler, for a server of our own. */
    callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
    /** Its filesystem store: where an object's file is, and how its metadata is kept. */
    store: {
      getResourcePath(bucket: string, key: string, resource: string): string;
      /** The object's stored metadata with its `etag` (the MD5, quoted); rejects with ENOENT when there is no object. */
      getMetadata(bucket: string, key: string): Promise<Record<string, string> & { etag: string }>;
      putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
      putObject(object: {
        bucket: string;
        key: string;
        content: Buffer | AsyncIterable<Buffer>;
        metadata: Record<string, string>;
      }): Promise<{ size: number; md5: string }>;
    };
  }
}

declare module 's3rver/lib/models/account.js' {
  interface AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
  }
  const S3rverAccount: { DUMMY_ACCOUNT: AWSAccount };
  export default S3rverAccount;
}
