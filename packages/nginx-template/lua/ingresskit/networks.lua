-- Address ∈ networks: the client's, for the source allow/deny lists and the limits' exempt list,
-- and an auth service's, for the peers it may not answer from. Networks come as { bytes, prefix
-- length }; an IPv4 network also covers the IPv4-mapped IPv6 form of its addresses.

local bit = require("bit")

local ngx_var = ngx.var
local ipairs = ipairs
local tonumber = tonumber
local floor = math.floor
local str_byte = string.byte
local str_char = string.char
local str_find = string.find
local str_format = string.format
local str_gmatch = string.gmatch
local str_lower = string.lower
local str_match = string.match
local str_sub = string.sub
local table_concat = table.concat
local band = bit.band
local lshift = bit.lshift

local _M = {}

local V4_MAPPED = "\0\0\0\0\0\0\0\0\0\0\255\255"

-- { hex, prefix length } networks (as nginx.conf or a push gives them) → { bytes, prefix length }.
function _M.from_hex(list)
  local networks = {}
  for index, network in ipairs(list or {}) do
    local bytes = network[1]:gsub("..", function(pair) return str_char(tonumber(pair, 16)) end)
    networks[index] = { bytes, network[2] }
  end
  return networks
end

local function parse_ipv4(text)
  local a, b, c, d = str_match(text, "^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
  if a == nil then return nil end
  a, b, c, d = tonumber(a), tonumber(b), tonumber(c), tonumber(d)
  if a > 255 or b > 255 or c > 255 or d > 255 then return nil end
  return str_char(a, b, c, d)
end

-- The 16-bit groups of "a:b:c" ({} for ""), or nil.
local function parse_groups(text)
  local groups = {}
  if text == "" then return groups end
  for piece in str_gmatch(text .. ":", "([^:]*):") do
    if str_match(piece, "^%x%x?%x?%x?$") == nil then return nil end
    groups[#groups + 1] = tonumber(piece, 16)
  end
  return groups
end

local function parse_ipv6(text)
  text = str_lower(text)
  -- A dotted IPv4 tail becomes two groups.
  local head, quad = str_match(text, "^(.*:)(%d+%.%d+%.%d+%.%d+)$")
  if head ~= nil then
    local v4 = parse_ipv4(quad)
    if v4 == nil then return nil end
    local a, b, c, d = str_byte(v4, 1, 4)
    text = head .. str_format("%x:%x", a * 256 + b, c * 256 + d)
  end
  local groups
  local left, right = str_match(text, "^(.-)::(.*)$")
  if left ~= nil then
    if str_find(right, "::", 1, true) then return nil end
    local l, r = parse_groups(left), parse_groups(right)
    if l == nil or r == nil or #l + #r > 7 then return nil end
    groups = l
    for _ = 1, 8 - #l - #r do groups[#groups + 1] = 0 end
    for _, group in ipairs(r) do groups[#groups + 1] = group end
  else
    groups = parse_groups(text)
    if groups == nil or #groups ~= 8 then return nil end
  end
  local bytes = {}
  for index, group in ipairs(groups) do
    bytes[index] = str_char(floor(group / 256), group % 256)
  end
  return table_concat(bytes)
end

-- An IPv4 or IPv6 address as text (as nginx prints it) → its bytes (4 or 16), or nil.
function _M.parse_address(text)
  if str_find(text, ":", 1, true) then return parse_ipv6(text) end
  return parse_ipv4(text)
end

-- Whether the address (bytes) is in one of the networks.
function _M.contains(networks, address)
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

-- Whether the client address is in one of the networks; `unknown` when the connection has no IP
-- address (a unix socket), so each list can fail closed.
function _M.contains_client(networks, unknown)
  local address = ngx_var.binary_remote_addr
  if address == nil then return unknown end
  return _M.contains(networks, address)
end

return _M
