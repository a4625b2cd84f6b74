-- Client address ∈ networks, for the source allow/deny lists and the limits' exempt list.
-- Networks come from the store as { bytes, prefix length }; an IPv4 network also covers the
-- IPv4-mapped IPv6 form of its addresses.

local bit = require("bit")

local ngx_var = ngx.var
local ipairs = ipairs
local str_byte = string.byte
local str_sub = string.sub
local band = bit.band
local lshift = bit.lshift

local _M = {}

local V4_MAPPED = "\0\0\0\0\0\0\0\0\0\0\255\255"

-- Whether the client address is in one of the networks; `unknown` when the connection has no IP
-- address (a unix socket), so each list can fail closed.
function _M.contains_client(networks, unknown)
  local address = ngx_var.binary_remote_addr
  if address == nil then return unknown end
  local mapped
  if #address == 16 and str_sub(address, 1, 12) == V4_MAPPED then mapped = str_sub(address, 13) end
  for _, network in ipairs(networks) do
    local bytes, bits = network[1], network[2]
    local subject = #bytes == #address and address or (#bytes == 4 and mapped) or nil
    if subject then
      local whole = (bits - bits % 8) / 8
      if str_sub(subject, 1, whole) == str_sub(bytes, 1, whole) then
        local rest = bits % 8
        if rest == 0 then return true end
        local mask = band(lshift(0xff, 8 - rest), 0xff)
        if band(str_byte(subject, whole + 1), mask) == str_byte(bytes, whole + 1) then return true end
      end
    end
  end
  return false
end

return _M
