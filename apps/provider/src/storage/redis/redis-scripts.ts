import type { Cluster, Redis } from 'ioredis';

// Sets a member and extends (never shortens) the set's expiry: an argument of -1 means "no expiry".
const ADD_TO_SET = `
local current = redis.call('PTTL', KEYS[1])
redis.call('SADD', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2])
if ttl < 0 then
  redis.call('PERSIST', KEYS[1])
elseif current ~= -1 and current < ttl then
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return 1`;

// Increments a counter and starts its window on the first increment.
const INCREMENT = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) == -1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`;

/**
 * The keys asked for (KEYS), and what the first one's value names (Store.getWithReferences):
 * ARGV[1] the deployment prefix, then per reference its path (a JSON array), its key prefix and
 * its lookup prefix ('' for none). Answers key, value pairs (keys without the deployment prefix
 * for those it named; false where nothing is stored). It reads keys it was not given, which a
 * Cluster cannot route: one server or a Sentinel group's primary only.
 */
const READ_WITH_REFERENCES = `
local values = redis.call('MGET', unpack(KEYS))
local out = {}
local root = values[1]
if root then
  local doc
  for j = 2, #ARGV, 3 do
    local path = cjson.decode(ARGV[j])
    local id = nil
    if #path == 0 then
      id = root
    else
      if doc == nil then
        local ok, decoded = pcall(cjson.decode, root)
        doc = ok and decoded or false
      end
      local node = doc
      for _, part in ipairs(path) do
        if type(node) == 'table' then node = node[part] else node = nil end
      end
      if type(node) == 'string' then id = node end
    end
    if id then
      local named = ARGV[j + 1] .. id
      local value = redis.call('GET', ARGV[1] .. named)
      out[#out + 1] = named
      out[#out + 1] = value
      if ARGV[j + 2] ~= '' and value then
        local looked = ARGV[j + 2] .. value
        out[#out + 1] = looked
        out[#out + 1] = redis.call('GET', ARGV[1] .. looked)
      end
    end
  end
end
for i = 1, #KEYS do
  out[#out + 1] = ''
  out[#out + 1] = values[i]
end
return out`;

/** The scripts as commands on a client (or a pipeline): ioredis sends EVALSHA, the text once per connection. */
export type Scripts = {
  signetAddToSet(key: string, member: string, ttlMs: number): Promise<unknown>;
  signetIncrement(key: string, by: number, ttlMs: number): Promise<unknown>;
  signetReadWithReferences(count: number, ...keysThenArgs: string[]): Promise<(string | null)[]>;
};

/** Defines the scripts on the client; a Cluster has no READ_WITH_REFERENCES (it reads keys it was not given). */
export function defineScripts(client: Redis | Cluster, cluster: boolean): Scripts {
  client.defineCommand('signetAddToSet', { numberOfKeys: 1, lua: ADD_TO_SET });
  client.defineCommand('signetIncrement', { numberOfKeys: 1, lua: INCREMENT });
  if (!cluster) client.defineCommand('signetReadWithReferences', { lua: READ_WITH_REFERENCES });
  return client as unknown as Scripts;
}
