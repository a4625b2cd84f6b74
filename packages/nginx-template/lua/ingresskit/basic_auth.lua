-- HTTP Basic authentication (ingress-nginx auth-type basic) against htpasswd hashes: $apr1$,
-- {SHA}, {SSHA} and {PLAIN} are computed here; every other format goes to crypt(3) from libcrypt
-- (through the LuaJIT FFI), which reads $1$, $5$, $6$, bcrypt $2a$/$2b$/$2y$, yescrypt $y$ and
-- DES. A hash nothing can verify, or a libcrypt that cannot be loaded, lets no one in.

local ffi = require("ffi")
local bit = require("bit")

local ngx = ngx
local ngx_var = ngx.var
local md5_bin = ngx.md5_bin
local sha1_bin = ngx.sha1_bin
local decode_base64 = ngx.decode_base64
local encode_base64 = ngx.encode_base64
local str_byte = string.byte
local str_sub = string.sub
local str_find = string.find
local str_match = string.match
local band = bit.band
local bor = bit.bor
local lshift = bit.lshift
local rshift = bit.rshift
local table_concat = table.concat

local _M = {}

ffi.cdef([[char *crypt(const char *key, const char *salt);]])

-- libcrypt as Debian ships it; nil when it cannot be loaded (then crypt formats fail closed).
local libcrypt
do
  local ok, loaded = pcall(ffi.load, "libcrypt.so.1")
  if ok then libcrypt = loaded end
end

local ITOA64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

-- `count` characters of crypt's base64 for the 24-bit `value`, low bits first.
local function to64(value, count)
  local out = {}
  for index = 1, count do
    local digit = band(value, 0x3f) + 1
    out[index] = str_sub(ITOA64, digit, digit)
    value = rshift(value, 6)
  end
  return table_concat(out)
end

-- The MD5-based crypt of FreeBSD (magic "$1$") as Apache uses it with magic "$apr1$".
local function md5_crypt(password, salt, magic)
  local alternate = md5_bin(password .. salt .. password)
  local parts = { password, magic, salt }
  local length = #password
  while length > 0 do
    parts[#parts + 1] = str_sub(alternate, 1, length > 16 and 16 or length)
    length = length - 16
  end
  length = #password
  while length > 0 do
    parts[#parts + 1] = band(length, 1) == 1 and "\0" or str_sub(password, 1, 1)
    length = rshift(length, 1)
  end
  local digest = md5_bin(table_concat(parts))
  for round = 0, 999 do
    local odd = band(round, 1) == 1
    local text = odd and password or digest
    if round % 3 ~= 0 then text = text .. salt end
    if round % 7 ~= 0 then text = text .. password end
    text = text .. (odd and digest or password)
    digest = md5_bin(text)
  end
  local bytes = { str_byte(digest, 1, 16) }
  local function triple(a, b, c)
    return to64(bor(lshift(bytes[a], 16), lshift(bytes[b], 8), bytes[c]), 4)
  end
  return magic .. salt .. "$" .. triple(1, 7, 13) .. triple(2, 8, 14) .. triple(3, 9, 15)
    .. triple(4, 10, 16) .. triple(5, 11, 6) .. to64(bytes[12], 2)
end

local function verify_crypt(password, hash)
  if libcrypt == nil or str_find(password, "\0", 1, true) then return false end
  local result = libcrypt.crypt(password, hash)
  if result == nil then return false end
  return ffi.string(result) == hash
end

-- Whether `password` matches the htpasswd `hash`.
local function verify(password, hash)
  if str_sub(hash, 1, 6) == "$apr1$" then
    local salt = str_match(hash, "^%$apr1%$([^$]*)%$")
    return salt ~= nil and md5_crypt(password, salt, "$apr1$") == hash
  end
  if str_sub(hash, 1, 5) == "{SHA}" then return "{SHA}" .. encode_base64(sha1_bin(password)) == hash end
  if str_sub(hash, 1, 6) == "{SSHA}" then
    local decoded = decode_base64(str_sub(hash, 7))
    if decoded == nil or #decoded <= 20 then return false end
    return sha1_bin(password .. str_sub(decoded, 21)) == str_sub(decoded, 1, 20)
  end
  if str_sub(hash, 1, 7) == "{PLAIN}" then return str_sub(hash, 8) == password end
  return verify_crypt(password, hash)
end

-- Verified (hash, password) pairs of this worker: bcrypt and friends are slow on purpose, and a
-- client sends the same credentials with every request. Bounded: emptied when full.
local verified = {}
local verified_count = 0
local MAX_VERIFIED = 4096

local function is_verified(password, hash)
  local key = sha1_bin(hash .. "\0" .. password)
  if verified[key] then return true end
  if not verify(password, hash) then return false end
  if verified_count >= MAX_VERIFIED then
    verified, verified_count = {}, 0
  end
  verified[key] = true
  verified_count = verified_count + 1
  return true
end

-- Whether the request carries the credentials of one of auth.users.
function _M.is_authenticated(auth)
  local header = ngx_var.http_authorization
  if header == nil then return false end
  local encoded = str_match(header, "^[Bb][Aa][Ss][Ii][Cc] +([A-Za-z0-9+/=]+) *$")
  if encoded == nil then return false end
  local credentials = decode_base64(encoded)
  if credentials == nil then return false end
  local colon = str_find(credentials, ":", 1, true)
  if colon == nil then return false end
  local hash = auth.users[str_sub(credentials, 1, colon - 1)]
  if hash == nil then return false end
  return is_verified(str_sub(credentials, colon + 1), hash)
end

-- The challenge a refused request gets.
function _M.challenge(auth)
  return 'Basic realm="' .. auth.realm .. '"'
end

-- Test hook: the Apache MD5 crypt, for checking against known hashes.
_M.md5_crypt = md5_crypt

return _M
