/**
 * Loaded into a server by a benchmark (node --import ./bench/full-gc.mjs), never by a deployment:
 * GET /__full-gc runs V8's full garbage collection twice in the server's process and answers what
 * it still holds (JSON: heapUsed and rss in bytes, from process.memoryUsage()), which is what the
 * process retains, garbage left out. That path never reaches the server's own handler.
 */
import http from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event !== 'request') return emit.call(this, event, ...args);
  const [req, res] = args;
  if (!req.url.startsWith('/__full-gc')) return emit.call(this, event, ...args);
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ heapUsed, rss }));
  return true;
};
