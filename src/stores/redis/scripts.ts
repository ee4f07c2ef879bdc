/**
 * The Lua scripts the Redis stores run. The session store's two run on one primary (a
 * plain or Sentinel client), so that an operation which reads a record and then changes its
 * user's index happens as one atomic step; they compute the keys they touch from the prefix
 * and the record, as `keys.ts` lays them out, which Redis allows outside a cluster, and on a
 * cluster the store never sends them. The counter store's touches one key, so it runs
 * anywhere.
 *
 * @module
 */

/**
 * Ends one session: `GETDEL` the record, then `ZREM` its handle from the index of the
 * uid the record names. KEYS: the session key. ARGV: the index key without the uid
 * (`<prefix>u:`), the handle.
 */
export const DESTROY_SCRIPT = `
local raw = redis.call('GETDEL', KEYS[1])
if not raw then return 0 end
local ok, record = pcall(cjson.decode, raw)
if ok and type(record) == 'table' and type(record.uid) == 'string' then
  redis.call('ZREM', ARGV[1] .. record.uid, ARGV[2])
end
return 1
`;

/**
 * Ends every session in a user's index whose record names that user, deletes the index,
 * and returns how many of them were live. KEYS: the index key. ARGV: the session key
 * without the handle (`<prefix>s:`), the uid, the time now in Unix seconds.
 */
export const DESTROY_BY_USER_SCRIPT = `
local ended = 0
local now = tonumber(ARGV[3])
for _, handle in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local key = ARGV[1] .. handle
  local raw = redis.call('GET', key)
  if raw then
    local ok, record = pcall(cjson.decode, raw)
    if ok and type(record) == 'table' and record.uid == ARGV[2] then
      redis.call('DEL', key)
      if tonumber(record.expiresAt) ~= nil and tonumber(record.expiresAt) > now then ended = ended + 1 end
    end
  end
end
redis.call('DEL', KEYS[1])
return ended
`;

/**
 * Takes one back from a counter: `DECR` only when the key exists with a count above zero,
 * so a reservation given back never creates a key (without a TTL) or goes negative, and the
 * key keeps its TTL. One key, so it runs on a cluster too. KEYS: the counter key.
 */
export const DECREMENT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/**
 * Adopts many sessions in one step, for the import at the cut-over: for each, `SET … PXAT`
 * the record and `ZADD` its handle to its user's index; then, once per index, prune the
 * members already expired and give it a TTL no shorter than its latest member's (as `insert`
 * does for one session). Times travel as strings of whole seconds, so no Lua number is ever
 * formatted into a command. ARGV: the session key without the handle (`<prefix>s:`), the
 * index key without the uid (`<prefix>u:`), the time now in Unix seconds, then four per
 * session: handle, uid, expiresAt, the record as JSON.
 */
export const ADOPT_MANY_SCRIPT = `
local latest = {}
for i = 4, #ARGV, 4 do
  local handle, expiresAt = ARGV[i], ARGV[i + 2]
  local index = ARGV[2] .. ARGV[i + 1]
  redis.call('ZADD', index, expiresAt, handle)
  redis.call('SET', ARGV[1] .. handle, ARGV[i + 3], 'PXAT', expiresAt .. '000')
  if latest[index] == nil or tonumber(expiresAt) > tonumber(latest[index]) then latest[index] = expiresAt end
end
for index, expiresAt in pairs(latest) do
  redis.call('ZREMRANGEBYSCORE', index, '-inf', ARGV[3])
  redis.call('PEXPIREAT', index, expiresAt .. '000', 'NX')
  redis.call('PEXPIREAT', index, expiresAt .. '000', 'GT')
end
return (#ARGV - 3) / 4
`;
