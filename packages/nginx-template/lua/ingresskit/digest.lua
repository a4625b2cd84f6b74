-- The content digest of the pushed data: the XOR, over every entry, of MD5(key, "\n", MD5(value)).
--
-- XOR makes it order-free and lets a push keep it up to date in O(what it changed): writing an
-- entry takes the old one's hash out and puts the new one's in. The control endpoint stores it
-- with each push and can recompute it from the shared dict; the controller compares both with
-- what its own last push answered, so a write it did not make, or one that died half-way, shows.

local bit = require("bit")

local ngx = ngx
local ngx_md5_bin = ngx.md5_bin
local bxor = bit.bxor
local bor = bit.bor
local lshift = bit.lshift
local tohex = bit.tohex
local str_byte = string.byte
local str_sub = string.sub
local tonumber = tonumber
local type = type
local ipairs = ipairs

local _M = {}

-- A digest is four 32-bit words; this is the digest of no entries.
function _M.empty()
  return { 0, 0, 0, 0 }
end

-- Toggles the entry `key` = `value` in `digest`: in when it was out, out when it was in.
function _M.toggle(digest, key, value)
  local hash = ngx_md5_bin(key .. "\n" .. ngx_md5_bin(value))
  for word = 1, 4 do
    local b1, b2, b3, b4 = str_byte(hash, word * 4 - 3, word * 4)
    digest[word] = bxor(digest[word], bor(lshift(b1, 24), lshift(b2, 16), lshift(b3, 8), b4))
  end
end

function _M.to_hex(digest)
  return tohex(digest[1], 8) .. tohex(digest[2], 8) .. tohex(digest[3], 8) .. tohex(digest[4], 8)
end

function _M.from_hex(text)
  if type(text) ~= "string" or #text ~= 32 then return _M.empty() end
  local digest = {}
  for word = 1, 4 do
    -- tonumber gives 0..2^32-1; bxor works on signed 32-bit words, and bor(x, 0) makes one.
    digest[word] = bor(tonumber(str_sub(text, word * 8 - 7, word * 8), 16) or 0, 0)
  end
  return digest
end

-- Recomputes the digest of every `d:<key>` entry of `shared`, yielding now and then so a large
-- table does not hold the worker's other requests. Returns the digest and the number of entries.
function _M.of_dict(shared, yield_every)
  local digest = _M.empty()
  local entries = 0
  for index, name in ipairs(shared:get_keys(0)) do
    if str_sub(name, 1, 2) == "d:" then
      local value = shared:get(name)
      if value ~= nil then
        _M.toggle(digest, str_sub(name, 3), value)
        entries = entries + 1
      end
    end
    if index % yield_every == 0 then ngx.sleep(0) end
  end
  return digest, entries
end

return _M
