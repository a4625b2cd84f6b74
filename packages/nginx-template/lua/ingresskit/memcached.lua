-- A memcached client over cosockets, its text protocol, only what the global rate limit needs:
-- incr (with a get pipelined behind it), add with an expiry, decr without reply. Connections are
-- kept per worker in a pool per server, sized and timed as the ConfigMap says; a connection that
-- saw an error is closed, never pooled, so the next request cannot read a stale answer.

local ngx = ngx
local tcp = ngx.socket.tcp
local tonumber = tonumber
local str_match = string.match
local str_sub = string.sub

local _M = {}

-- A connection to `store` ({ host, port, timeout ms, idle ms, pool size }), from the pool when
-- one is idle there; nil and the error otherwise.
function _M.connect(store)
  local sock = tcp()
  local timeout = store[3]
  sock:settimeouts(timeout, timeout, timeout)
  local ok, err = sock:connect(store[1], store[2], {
    pool = "ingresskit_memcached " .. store[1] .. ":" .. store[2],
    pool_size = store[5],
  })
  if not ok then return nil, err end
  return sock
end

-- Back to the pool for `idle ms`.
function _M.keep(sock, store)
  local ok = sock:setkeepalive(store[4], store[5])
  if not ok then sock:close() end
end

-- The number an incr or decr answered, false for NOT_FOUND, or nil and the error.
local function read_count(sock)
  local line, err = sock:receive("*l")
  if line == nil then return nil, err end
  if line == "NOT_FOUND" then return false end
  local count = tonumber(str_match(line, "^(%d+)$"))
  if count == nil then return nil, "unexpected answer: " .. str_sub(line, 1, 64) end
  return count
end

-- The number stored under the one key a get asked for, 0 when there is none; nil and the error.
local function read_number_value(sock)
  local line, err = sock:receive("*l")
  if line == nil then return nil, err end
  if line == "END" then return 0 end
  local size = tonumber(str_match(line, "^VALUE %S+ %d+ (%d+)$"))
  if size == nil or size > 32 then return nil, "unexpected answer: " .. str_sub(line, 1, 64) end
  local data
  data, err = sock:receive(size + 2)
  if data == nil then return nil, err end
  line, err = sock:receive("*l")
  if line ~= "END" then return nil, err or "unexpected answer after a value" end
  -- incr keeps a number as decimal text, maybe padded with spaces.
  return tonumber(str_match(data, "^%s*(%d+)")) or 0
end

-- Adds 1 to `key` and reads `other` in one round trip: the new count (false when `key` does not
-- exist) and the number under `other` (0 when absent); nil and the error.
function _M.incr_and_get(sock, key, other)
  local ok, err = sock:send("incr " .. key .. " 1\r\nget " .. other .. "\r\n")
  if not ok then return nil, nil, err end
  local count
  count, err = read_count(sock)
  if count == nil then return nil, nil, err end
  local value
  value, err = read_number_value(sock)
  if value == nil then return nil, nil, err end
  return count, value
end

-- Creates `key` holding 1 for `ttl` seconds: true, false when it exists already, or nil and the
-- error.
function _M.add_one(sock, key, ttl)
  local ok, err = sock:send("add " .. key .. " 0 " .. ttl .. " 1\r\n1\r\n")
  if not ok then return nil, err end
  local line
  line, err = sock:receive("*l")
  if line == nil then return nil, err end
  if line == "STORED" then return true end
  if line == "NOT_STORED" then return false end
  return nil, "unexpected answer: " .. str_sub(line, 1, 64)
end

-- Adds 1 to `key`: the new count, false when it does not exist, or nil and the error.
function _M.incr(sock, key)
  local ok, err = sock:send("incr " .. key .. " 1\r\n")
  if not ok then return nil, err end
  return read_count(sock)
end

-- Takes 1 from `key` without waiting for an answer (noreply): true, or nil and the error.
function _M.decr_noreply(sock, key)
  return sock:send("decr " .. key .. " 1 noreply\r\n")
end

return _M
