/**
 * Loaded into a server by the request-cost benchmark (node --import ./bench/request-cpu.mjs),
 * never by a deployment: the CPU time (user + system, process.cpuUsage) from each request's
 * arrival to the end of its answer, summed per route. Meaningful at concurrency 1, where one
 * request runs at a time.
 * GET /__request-cpu answers the sums (JSON); that path never reaches the server's own handler.
 */
import http from 'node:http';

const costs = new Map();
const route = (req) => `${req.method} ${(req.url ?? '').split('?')[0].replace(/\/[A-Za-z0-9_-]{16,}/g, '/:id')}`;
const entryOf = (key) => {
  let entry = costs.get(key);
  if (!entry) {
    entry = { requests: 0, micros: 0 };
    costs.set(key, entry);
  }
  return entry;
};

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, ...args) {
  if (event !== 'request') return emit.call(this, event, ...args);
  const [req, res] = args;
  if (req.url.startsWith('/__request-cpu')) {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(Object.fromEntries(costs)));
    return true;
  }
  const cpu = process.cpuUsage();
  const key = route(req);
  res.once('finish', () => {
    const used = process.cpuUsage(cpu);
    const entry = entryOf(key);
    entry.requests += 1;
    entry.micros += used.user + used.system;
  });
  return emit.call(this, event, ...args);
};
