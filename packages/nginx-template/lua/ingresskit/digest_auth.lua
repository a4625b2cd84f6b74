-- HTTP Digest authentication (ingress-nginx auth-type digest, RFC 7616 with MD5 and qop=auth) as
-- nginx-http-auth-digest answers it. A nonce is its issue time and a unique part, signed with an
-- HMAC under a key of this nginx instance, so any worker verifies any worker's nonce with no state
-- kept per challenge. Only answered nonces are recorded, in the auth shared dict: the first right
-- answer starts a short reuse window, and each nc counts once.

local bit = require("bit")

local ngx = ngx
local ngx_var = ngx.var
local md5 = ngx.md5
local hmac_sha1 = ngx.hmac_sha1
local get_method = ngx.req.get_method
local str_byte = string.byte
local str_sub = string.sub
local str_find = string.find
local str_lower = string.lower
local str_format = string.format
local table_concat = table.concat
local bor = bit.bor
local bxor = bit.bxor
local tonumber = tonumber

local _M = {}

-- nginx-http-auth-digest's defaults (auth_digest_timeout, auth_digest_expires,
-- auth_digest_replays), which ingress-nginx does not change: a challenge may be answered for 60
-- seconds; once answered, its nonce serves 10 seconds and nc 1 to 20; then the client gets
-- stale=true and answers a fresh nonce without asking its user again.
local CHALLENGE_SECONDS = 60
local REUSE_SECONDS = 10
local MAX_NC = 20

-- Bounds on what a client sends: nginx lets a header line reach its large buffers (8k).
local MAX_HEADER = 8192
local MAX_PARAMS = 16
local MAX_CNONCE = 256

-- <issue time, 8 hex><unique part, 16 hex><HMAC, 32 hex>
local BODY_LENGTH = 24
local NONCE_LENGTH = 56

local KEY_NAME = "digest-auth:key"
local RECORD_PREFIX = "digest-auth:nonce:"

-- Holds the records of answered nonces next to external auth's answers: both are short-lived,
-- and when it is full the least recently used go first.
local records = ngx.shared.ingresskit_auth_cache

local HEX = {}
for byte = 0, 255 do HEX[byte] = str_format("%02x", byte) end

local function to_hex(bytes)
  local out = {}
  for index = 1, #bytes do out[index] = HEX[str_byte(bytes, index)] end
  return table_concat(out)
end

local function read_random(count)
  local file = io.open("/dev/urandom", "rb")
  local bytes = file and file:read(count)
  if file then file:close() end
  if bytes == nil or #bytes ~= count then return nil end
  return bytes
end

-- The signing key, made when this module loads in init_by_lua so that every worker forked
-- afterwards holds the same one; kept in the shared dict (add: only the first time) so that a
-- reload keeps the nonces out there valid. Without randomness there is no key, and nobody gets in.
local function load_key()
  local fresh = read_random(32)
  if records == nil then return fresh end
  if fresh ~= nil then records:safe_add(KEY_NAME, fresh) end
  return records:get(KEY_NAME) or fresh
end

local key = load_key()
if key == nil then ngx.log(ngx.ERR, "ingresskit: no randomness for the digest auth key; digest auth lets nobody in") end

local function sign(realm, body)
  return str_sub(to_hex(hmac_sha1(key, realm .. "\0" .. body)), 1, 32)
end

-- The opaque value of a realm's challenges: the client must send it back unchanged.
local function opaque_of(realm)
  return str_sub(to_hex(hmac_sha1(key, "opaque\0" .. realm)), 1, 32)
end

-- Nonces of one worker differ by the counter, of two workers by the pid, of two starts by the time.
local issued_count = 0

local function issue_nonce(realm)
  issued_count = issued_count + 1
  local unique = hmac_sha1(key, ngx.worker.pid() .. "\0" .. issued_count .. "\0" .. ngx.now())
  local body = str_format("%08x", ngx.time()) .. str_sub(to_hex(unique), 1, 16)
  return body .. sign(realm, body)
end

-- Whether two strings are equal, in a time that does not depend on where they differ.
local function is_equal(left, right)
  if #left ~= #right then return false end
  local difference = 0
  for index = 1, #left do
    difference = bor(difference, bxor(str_byte(left, index), str_byte(right, index)))
  end
  return difference == 0
end

local TOKEN = [[^([%w!#$%%&'*+%-.^_`|~]+)]]
local NAME_AND_EQUALS = "^([%w!#$%%&'*+%-.^_`|~]+)[ \t]*=[ \t]*"

-- A quoted-string starting at `from` (just after its opening quote): its unescaped text and the
-- position after its closing quote; nil when it does not end.
local function read_quoted(header, from)
  local parts = {}
  local position = from
  while true do
    local stop = str_find(header, '["\\]', position)
    if stop == nil then return nil end
    parts[#parts + 1] = str_sub(header, position, stop - 1)
    if str_byte(header, stop) == 34 then return table_concat(parts), stop + 1 end
    if stop == #header then return nil end
    parts[#parts + 1] = str_sub(header, stop + 1, stop + 1)
    position = stop + 2
  end
end

-- The auth-params of a Digest Authorization header by lower-case name, or nil: a header over
-- MAX_HEADER, more than MAX_PARAMS, a repeated name, an unterminated quote, or anything that is
-- not a comma-separated `name=token` or `name="quoted"` list refuses the whole header.
local function parse_params(header)
  if #header > MAX_HEADER then return nil end
  local _, scheme_end = str_find(header, "^[Dd][Ii][Gg][Ee][Ss][Tt][ \t]+")
  if scheme_end == nil then return nil end
  local params, count, length = {}, 0, #header
  local position = scheme_end + 1
  while true do
    -- RFC 7235's #rule lets empty elements and whitespace stand between the parameters.
    local _, gap_end = str_find(header, "^[ \t,]*", position)
    position = gap_end + 1
    if position > length then break end
    local _, name_end, name = str_find(header, NAME_AND_EQUALS, position)
    if name == nil then return nil end
    name = str_lower(name)
    local value
    if str_byte(header, name_end + 1) == 34 then
      value, position = read_quoted(header, name_end + 2)
      if value == nil then return nil end
    else
      local _, token_end, token = str_find(header, TOKEN, name_end + 1)
      if token == nil then return nil end
      value, position = token, token_end + 1
    end
    if params[name] ~= nil then return nil end
    count = count + 1
    if count > MAX_PARAMS then return nil end
    params[name] = value
    local _, space_end = str_find(header, "^[ \t]*", position)
    position = space_end + 1
    if position <= length and str_byte(header, position) ~= 44 then return nil end
  end
  return params
end

-- A right answer to `nonce`, issued at `issued`, with `nc`: "ok", or "stale" when the nonce is
-- too old or used up, or nil when nc was used before (a replay) or the use cannot be recorded.
local function use_nonce(nonce, issued, nc)
  if records == nil or nc < 1 then return nil end
  if nc > MAX_NC then return "stale" end
  local now = ngx.time()
  local record = RECORD_PREFIX .. nonce
  local first = records:get(record)
  if first == nil then
    if now - issued >= CHALLENGE_SECONDS or issued > now + 1 then return "stale" end
    -- Outlives the nonce: once it expires the nonce is past CHALLENGE_SECONDS, so stale anyway.
    local ok, err = records:add(record, now, CHALLENGE_SECONDS + REUSE_SECONDS)
    if ok then
      first = now
    elseif err == "exists" then
      first = records:get(record) or now
    else
      return nil
    end
  end
  if now - first >= REUSE_SECONDS then return "stale" end
  -- add fails for an nc already recorded: each one serves a single request.
  local ok = records:add(record .. ":" .. nc, true, REUSE_SECONDS + 1)
  if not ok then return nil end
  return "ok"
end

-- "ok" when the request carries a right Digest answer of one of auth.users to a live nonce of
-- auth.realm, "stale" when the answer is right but its nonce is too old or used up, else nil.
function _M.check(auth)
  if key == nil then return nil end
  local header = ngx_var.http_authorization
  if header == nil then return nil end
  local params = parse_params(header)
  if params == nil then return nil end
  local username, nonce, uri, nc, cnonce, response =
    params.username, params.nonce, params.uri, params.nc, params.cnonce, params.response
  if username == nil or nonce == nil or uri == nil or nc == nil or cnonce == nil or response == nil then return nil end
  if params.realm ~= auth.realm or params.qop ~= "auth" or params.opaque ~= opaque_of(auth.realm) then return nil end
  if params.algorithm ~= nil and str_lower(params.algorithm) ~= "md5" then return nil end
  if params.userhash ~= nil and str_lower(params.userhash) ~= "false" then return nil end
  -- The answer covers the URI it names: it must be this request's.
  if uri ~= ngx_var.request_uri then return nil end
  if not str_find(nc, "^%x%x%x%x%x%x%x%x$") or cnonce == "" or #cnonce > MAX_CNONCE then return nil end
  if #nonce ~= NONCE_LENGTH or not str_find(nonce, "^[0-9a-f]+$") then return nil end
  local body = str_sub(nonce, 1, BODY_LENGTH)
  if not is_equal(str_sub(nonce, BODY_LENGTH + 1), sign(auth.realm, body)) then return nil end
  local ha1 = auth.users[username]
  if ha1 == nil then return nil end
  local ha2 = md5(get_method() .. ":" .. uri)
  local expected = md5(ha1 .. ":" .. nonce .. ":" .. nc .. ":" .. cnonce .. ":auth:" .. ha2)
  if not is_equal(str_lower(response), expected) then return nil end
  return use_nonce(nonce, tonumber(str_sub(body, 1, 8), 16), tonumber(nc, 16))
end

-- The challenge a refused request gets, with a fresh nonce; `stale` when the refused answer was
-- right but for a nonce too old or used up.
function _M.challenge(auth, stale)
  local realm = auth.realm
  local nonce = key and issue_nonce(realm) or ""
  local opaque = key and opaque_of(realm) or ""
  return 'Digest realm="' .. realm .. '", qop="auth", nonce="' .. nonce .. '", opaque="' .. opaque
    .. '", algorithm=MD5' .. (stale and ", stale=true" or "")
end

-- Test hook: the header parser, for checking hostile input.
_M.parse_params = parse_params

return _M
