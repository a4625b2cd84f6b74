-- ssl_certificate_by_lua of every HTTPS listener: asks for a client certificate where the server
-- name's host requires one (ingresskit.client_certificates), and serves the certificate for the
-- client's server name (SNI) from the pushed TLS bindings, exact name first, then `*.` with the first label dropped.
-- A name without a binding, and a client without SNI, get the binding of `*` (the controller's
-- default certificate) when there is one, else keep the server's default certificate
-- (ssl_certificate in nginx.conf). So does a name bound to "" (route-model's NO_CERTIFICATE): it
-- belongs to another tenant than the `*.` binding above it, whose certificate it must not get.
-- Certificates are parsed once per id per worker (store.lua).

local ssl = require("ngx.ssl")
local store = require("ingresskit.store")
local client_certificates = require("ingresskit.client_certificates")

local ngx = ngx
local str_find = string.find
local str_sub = string.sub
local str_lower = string.lower

local tls = store.tls

local _M = {}

function _M.serve()
  if not store.sync() then return end
  local name = ssl.server_name()
  local id
  if name ~= nil then
    name = str_lower(name)
    id = tls[name]
    if id == nil then
      local dot = str_find(name, ".", 1, true)
      if dot ~= nil then id = tls["*" .. str_sub(name, dot)] end
    end
  end
  if name ~= nil then client_certificates.ask(name) end
  if id == nil or id == "" then id = tls["*"] end
  if id == nil then return end
  local pair = store.certificate(id)
  if pair == nil then return end
  local ok, err = ssl.clear_certs()
  if ok then ok, err = ssl.set_cert(pair.cert) end
  if ok then ok, err = ssl.set_priv_key(pair.key) end
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: cannot serve certificate ", store.escape(id), " for ", store.escape(name or ""), ": ", err)
    return ngx.exit(ngx.ERROR)
  end
end

return _M
