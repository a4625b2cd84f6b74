-- Backends of routes with a backend TLS policy are reached through the controller's TLS relay:
-- nginx speaks plain text to one unix socket per relay and endpoint, in the prefix's relay/
-- directory, and the relay opens TLS to the endpoint with the policy's settings. The socket names
-- are made as the controller makes them (nginx-template's relaySocketName): the relay id, the
-- address with `-` for `:` and the port, joined by `_`.

local str_gsub = string.gsub

local _M = {}

local directory = ngx.config.prefix() .. "relay/"
-- An IPv6 peer is bracketed (see store.lua's peers_of); nginx would read a `:` in a unix path as
-- the start of the URI.
local ADDRESS_CHARACTERS = { ["["] = "", ["]"] = "", [":"] = "-" }

-- The `unix:` address of the relay socket of `relay` towards `peer` ({ address, port }), made
-- once per pushed peer and relay.
function _M.address(relay, peer)
  local addresses = peer.relays
  if addresses == nil then
    addresses = {}
    peer.relays = addresses
  end
  local address = addresses[relay]
  if address == nil then
    address = "unix:" .. directory .. relay .. "_" .. (str_gsub(peer[1], "[%[%]:]", ADDRESS_CHARACTERS)) .. "_" .. peer[2]
    addresses[relay] = address
  end
  return address
end

return _M
