// The floor for bench/ingest: a bare Node HTTP server that only reads the body and answers 202.
import { createServer } from 'node:http';

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end('{"status":"queued"}');
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`floor listening: http://127.0.0.1:${address.port}/`);
});
