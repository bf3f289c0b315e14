// @ts-check
// Worker-thread entry that runs the three emulators, so their work happens on another core than the
// handlers'. They are reached only over HTTP, exactly like the AWS services they stand in for, and only
// from this machine: each listens on the loopback interface, behind a gate that refuses any request not
// signed with this start's access key id (none of the three checks credentials on its own, and s3rver
// serves anonymous requests), so neither the network nor another local user can read or purge them.
// Plain JavaScript with JSDoc types (tsc checks it), so the worker needs no TypeScript loader: one per
// start took about as long as loading the three emulators.
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createServer } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parentPort, workerData } from 'node:worker_threads';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import S3rverAccount from 's3rver/lib/models/account.js';
import { buildApp } from 'fauxqs';

/** @typedef {import('node:net').AddressInfo} AddressInfo */
/** @typedef {import('node:http').Server} Server */
/** @typedef {import('node:http').IncomingMessage} IncomingMessage */
/** @typedef {import('node:http').ServerResponse} ServerResponse */
/** @typedef {{ dynamodb: number; s3: number; sqs: number }} EmulatorPorts */
/** @typedef {{ dataDir: string; credentials: { accessKeyId: string; secretAccessKey: string } }} EmulatorWorkerData */

const LOOPBACK = '127.0.0.1';
const { dataDir, credentials } = /** @type {EmulatorWorkerData} */ (workerData);
if (!parentPort) throw new Error('emulator-servers.mjs runs in a worker thread.');
const parent = parentPort;
const dynamoDir = join(dataDir, 'dynamodb');
const s3Dir = join(dataDir, 's3');
mkdirSync(dynamoDir, { recursive: true });
mkdirSync(s3Dir, { recursive: true });

/**
 * The access key id a SigV4 request was signed with: from the Authorization header or a presigned query.
 * @param {IncomingMessage} req
 * @returns {string | null}
 */
function accessKeyIdOf(req) {
  const header = /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\//.exec(req.headers.authorization ?? '');
  if (header) return header[1] ?? null;
  const query = new URL(req.url ?? '/', 'http://emulator').searchParams.get('X-Amz-Credential');
  return query ? (query.split('/')[0] ?? null) : null;
}

/**
 * Puts the server's request handling behind the credential check; call before it listens.
 * @param {Server} server
 * @returns {Server}
 */
function gate(server) {
  const handlers = /** @type {((req: IncomingMessage, res: ServerResponse) => void)[]} */ (server.listeners('request'));
  server.removeAllListeners('request');
  server.on('request', (/** @type {IncomingMessage} */ req, /** @type {ServerResponse} */ res) => {
    if (accessKeyIdOf(req) === credentials.accessKeyId) {
      for (const handler of handlers) handler.call(server, req, res);
      return;
    }
    res.writeHead(403, { 'content-type': 'application/json', connection: 'close' });
    res.end(
      JSON.stringify({
        __type: 'UnrecognizedClientException',
        message:
          'This local emulator answers only requests signed with the credentials of the local mode that started it.',
      }),
    );
  });
  return server;
}

/** @param {Server} server @returns {Promise<number>} */
const listen = (server) =>
  new Promise((resolve) =>
    server.listen(0, LOOPBACK, () => resolve(/** @type {AddressInfo} */ (server.address()).port)),
  );
/** @param {Server} server @returns {Promise<void>} */
const close = (server) => new Promise((resolve) => server.close(() => resolve()));

const dynamo = gate(dynalite({ path: dynamoDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }));

// s3rver verifies signatures against its own registry: this start's key pair replaces its well-known one.
S3rverAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');
S3rverAccount.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
const s3rver = new S3rver({ directory: s3Dir, silent: true });
// s3rver answers a PUT once its hashing stream has ended, before the bytes reach the object's file, so a
// GET right after could read a short or empty object, where S3 reads what was written. Here the object is
// streamed to a temporary file as it arrives (an export of gigabytes is never held in memory, and the PUT is
// answered as soon as its last byte is on disk) and renamed over the old one (a concurrent GET sees the old
// object or the new, never part of one), and its metadata written the same way, before the PUT is answered. A
// listing parses every object's metadata: one left half-written by a process killed mid-PUT made every
// later listing of the bucket answer 500, so a restarted local mode could not replay its inbox.
const { store } = s3rver;
/**
 * The store writing an object's metadata and checksum files under temporary names ending in `suffix`.
 * @param {string} suffix
 * @returns {typeof store}
 */
const writingAside = (suffix) =>
  Object.create(store, {
    getResourcePath: {
      value: (/** @type {string} */ bucket, /** @type {string} */ key, /** @type {string} */ resource) =>
        `${store.getResourcePath(bucket, key, resource)}${suffix}`,
    },
  });
store.putObject = async (/** @type {Parameters<typeof store.putObject>[0]} */ object) => {
  const suffix = `.${randomUUID()}.partial`;
  const path = (/** @type {string} */ resource) => store.getResourcePath(object.bucket, object.key, resource);
  await mkdir(dirname(path('object')), { recursive: true });
  const hash = createHash('md5');
  let size = 0;
  await pipeline(
    Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content,
    async function* (/** @type {AsyncIterable<Buffer>} */ chunks) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        size += chunk.length;
        yield chunk;
      }
    },
    createWriteStream(`${path('object')}${suffix}`),
  );
  const md5 = hash.digest('hex');
  await writingAside(suffix).putMetadata(object.bucket, object.key, object.metadata, md5);
  // Metadata first: a listing never finds an object file whose metadata is not whole.
  for (const resource of ['metadata.json', 'object.md5', 'object'])
    await rename(`${path(resource)}${suffix}`, path(resource));
  return { size, md5 };
};

/**
 * The ETag S3 would give the object (its MD5, quoted, as s3rver keeps it), or null when there is none.
 * @param {string} bucket
 * @param {string} key
 * @returns {Promise<string | null>}
 */
async function currentEtag(bucket, key) {
  try {
    return (await store.getMetadata(bucket, key)).etag;
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return null;
    throw error;
  }
}

const PRECONDITION_FAILED = {
  status: 412,
  code: 'PreconditionFailed',
  message: 'At least one of the pre-conditions you specified did not hold',
};

/**
 * Why S3 would refuse this write, from its conditional headers and the object's current ETag; null: write it.
 * @param {IncomingMessage} req
 * @param {string | null} etag
 * @returns {{ status: number; code: string; message: string } | null}
 */
function refusal(req, etag) {
  const ifNoneMatch = req.headers['if-none-match'];
  const ifMatch = req.headers['if-match'];
  if (ifNoneMatch !== undefined && etag !== null && (ifNoneMatch === '*' || ifNoneMatch === etag))
    return PRECONDITION_FAILED;
  if (ifMatch !== undefined && etag === null)
    return { status: 404, code: 'NoSuchKey', message: 'The specified key does not exist.' };
  if (ifMatch !== undefined && ifMatch !== '*' && ifMatch !== etag) return PRECONDITION_FAILED;
  return null;
}

// s3rver ignores If-None-Match and If-Match on a PUT, which S3 honours (a create-only write, a replacement
// of the version read). Here every write of an object waits for the one before it on the same key, the
// condition is checked against the object as it then is, and a failed condition is answered as S3 answers
// it, so two writers racing for one key behave locally as they do in AWS: exactly one wins.
/** @type {Map<string, Promise<void>>} */
const writesInFlight = new Map();
const s3rverHandler = s3rver.callback();
/**
 * @param {IncomingMessage} req
 * @param {ServerResponse} res
 */
function conditionalWrites(req, res) {
  const path = new URL(req.url ?? '/', 'http://emulator').pathname;
  const [bucket, ...keyParts] = path.slice(1).split('/');
  const key = keyParts.length > 0 ? decodedKey(keyParts.join('/')) : null;
  // Not an object write (or a key s3rver will refuse itself): nothing to order or check.
  if ((req.method !== 'PUT' && req.method !== 'DELETE') || key === null) return s3rverHandler(req, res);
  const slot = `${bucket}/${key}`;
  const before = writesInFlight.get(slot) ?? Promise.resolve();
  const done = before.then(async () => {
    const conditional = req.headers['if-none-match'] !== undefined || req.headers['if-match'] !== undefined;
    const refused = conditional ? refusal(req, await currentEtag(bucket ?? '', key)) : null;
    if (refused) {
      req.resume();
      res.writeHead(refused.status, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refused.code}</Code><Message>` +
          `${refused.message}</Message><Key>${escapeXml(key)}</Key><RequestId>${randomUUID()}</RequestId></Error>`,
      );
      return;
    }
    /** @type {Promise<void>} */
    const answered = new Promise((resolve) => res.once('close', () => resolve()));
    s3rverHandler(req, res);
    await answered;
  });
  const settled = done.catch((/** @type {Error} */ error) => {
    console.error(`local S3 write failed: ${error.message}`);
    if (!res.headersSent) res.writeHead(500).end();
  });
  writesInFlight.set(slot, settled);
  void settled.then(() => {
    if (writesInFlight.get(slot) === settled) writesInFlight.delete(slot);
  });
}

/**
 * @param {string} encoded
 * @returns {string | null}
 */
function decodedKey(encoded) {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}

/** @type {Record<string, string>} */
const XML_ENTITIES = { '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' };
/** @param {string} text */
const escapeXml = (text) => text.replace(/[<>&'"]/g, (c) => XML_ENTITIES[c] ?? c);

const s3 = gate(createServer(conditionalWrites));

// s3rver reads an object's files in two steps; when the same key is rewritten or deleted in between (a
// duplicate delivery landing while its twin is deleted), its file stream fails outside any handler. One
// failed request must not take every emulator down: it is logged, its socket is cut after a while (the
// client retries), and everything else keeps serving.
process.on('uncaughtException', (error) => console.error(`local emulator request failed: ${error.message}`));
s3.setTimeout(1_000, (socket) => socket.destroy());

const sqsApp = buildApp({ logger: false });
await sqsApp.ready();
gate(sqsApp.server);

/** @type {EmulatorPorts} */
const ports = { dynamodb: await listen(dynamo), s3: await listen(s3), sqs: 0 };
await sqsApp.listen({ port: 0, host: LOOPBACK });
ports.sqs = /** @type {AddressInfo} */ (sqsApp.server.address()).port;

parent.on('message', async (/** @type {string} */ message) => {
  if (message !== 'stop') return;
  await sqsApp.close();
  await close(s3);
  await close(dynamo);
  parent.postMessage('stopped');
});
parent.postMessage(ports);
