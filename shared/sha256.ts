import { createHash } from 'node:crypto';

/** Hex SHA-256: delivery ids without a header, content-addressed object keys, prompt hashes. */
export const sha256Hex = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
