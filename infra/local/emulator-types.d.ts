// Minimal typings for the two emulators that ship none; only what local mode uses.
declare module 'dynalite' {
  import type { Server } from 'node:http';
  export default function dynalite(options?: { path?: string; createTableMs?: number; deleteTableMs?: number; updateTableMs?: number }): Server;
}

declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: { port?: number; address?: string; directory: string; silent?: boolean });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
