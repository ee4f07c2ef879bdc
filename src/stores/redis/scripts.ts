/**
 * The Lua scripts of the Redis stores. The session store's run on one primary only (they compute
 * keys from the prefix, which a cluster forbids) to make read-then-reindex atomic; the counter's touches one key.
 *
 * @module
 */

/** Ends one session: `GETDEL` the record, `ZREM` from its uid's index. KEYS: session key. ARGV: `<prefix>u:`, handle. */
export const DESTROY_SCRIPT = `
local raw = redis.call('GETDEL', KEYS[1])
if not raw then return 0 end
local ok, record = pcall(cjson.decode, raw)
if ok and type(record) == 'table' and type(record.uid) == 'string' then
  redis.call('ZREM', ARGV[1] .. record.uid, ARGV[2])
end
return 1
`;

/** Ends a user's indexed sessions, deletes the index, returns how many were live. KEYS: index. ARGV: `<prefix>s:`, uid, now. */
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

/** `DECR` only an existing count above zero: never creates a TTL-less key or goes negative. KEYS: counter key. */
export const DECREMENT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]))
if count and count > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

/** Adopts many sessions as `insert` does one. ARGV: `<prefix>s:`, `<prefix>u:`, now, then handle, uid, expiresAt, JSON each. */
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
