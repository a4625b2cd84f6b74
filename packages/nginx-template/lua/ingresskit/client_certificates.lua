-- Client certificate authentication (ingress-nginx auth-tls), a policy of a whole hostname: the
-- `clientCert` of a host entry (data-entries.ts ClientCertEntry).
--
-- nginx.conf stays constant, so there is no ssl_verify_client: ssl_certificate_by_lua asks the
-- client for a certificate (ngx.ssl.verify_client with the host's CA certificates) when the
-- server name (SNI) belongs to a host that requires one, and the router enforces the verdict
-- ($ssl_client_verify) per request. Like nginx's own verification, a failed one never ends the
-- handshake: the request gets 400 (or the error page), so a browser can show why.
--
-- What binds the verdict to the host: a request must name the host its TLS server name named
-- (else 421, as nginx answers a Host that differs from the SNI of a verifying server), and every
-- TLS session is bound, in ssl_client_hello_by_lua, to its server name and the host's policy
-- (the session id context), so a session verified for one host (or CA) is never resumed for
-- another: the client verifies again. Long-lived connections keep the verdict of their handshake.

local ffi = require("ffi")
local ssl = require("ngx.ssl")
local clienthello = require("ngx.ssl.clienthello")
local base = require("resty.core.base")
local store = require("ingresskit.store")

local ngx = ngx
local ngx_var = ngx.var
local req = ngx.req
local re_find = ngx.re.find
local sha1_bin = ngx.sha1_bin
local str_find = string.find
local str_sub = string.sub
local str_lower = string.lower
local C = ffi.C

local hosts = store.hosts
local is_covered = store.is_covered

-- SSL_set_session_id_context is OpenSSL's, which nginx links; the other is lua-nginx-module's.
-- Declared once: another module may have declared them already.
pcall(ffi.cdef, [[
void *ngx_http_lua_ffi_get_req_ssl_pointer(void *r);
int SSL_set_session_id_context(void *ssl, const unsigned char *sid_ctx, unsigned int sid_ctx_len);
]])

local _M = {}

-- nginx's ngx_ssl_verify_error_optional: the failures optional_no_ca lets through, all of them
-- an issuer that is not among the CA certificates (OpenSSL 3 and 1.1 spellings).
local UNKNOWN_ISSUER = {
  ["unable to get issuer certificate"] = true,
  ["unable to get local issuer certificate"] = true,
  ["self-signed certificate"] = true,
  ["self signed certificate"] = true,
  ["self-signed certificate in certificate chain"] = true,
  ["self signed certificate in certificate chain"] = true,
  ["unable to verify the first certificate"] = true,
}

-- Parsed CA chains by policy id, per worker; emptied when it grows past MAX_CHAINS.
local MAX_CHAINS = 1000
local chains, chain_count = {}, 0

local function ca_chain(policy)
  local chain = chains[policy.id]
  if chain then return chain end
  local err
  chain, err = ssl.parse_pem_cert(policy.ca)
  if not chain then return nil, err end
  if chain_count >= MAX_CHAINS then
    chains, chain_count = {}, 0
  end
  chains[policy.id] = chain
  chain_count = chain_count + 1
  return chain
end

-- The client certificate policy that applies to `name` (lower case): that of the first virtual
-- host in route-model's candidate order (the name, `*.` dropping one label at a time, `*`) that
-- covers the name and has one, looking no further than `last` (the host that answered) when
-- given. So the handshake asks with the policy a request for the name can need, and the request
-- is held to the one of the host that answers it or of a more specific host.
function _M.policy_for(name, last)
  if store.client_cert_count == 0 then return nil end
  local candidate = name
  local dot = 0
  while true do
    local entry = hosts[candidate]
    if entry and entry.clientCert and is_covered(candidate, entry.match, name) then return entry.clientCert end
    if candidate == last or candidate == "*" then return nil end
    dot = str_find(name, ".", dot + 1, true)
    candidate = dot and ("*" .. str_sub(name, dot)) or "*"
  end
end

-- ssl_client_hello_by_lua: binds the TLS session to the server name and the policy of its host.
function _M.bind_session()
  local name = clienthello.get_client_hello_server_name()
  name = name and str_lower(name) or ""
  local policy = name ~= "" and store.sync() and _M.policy_for(name)
  local context = sha1_bin(name .. "\n" .. (policy and policy.id or ""))
  local pointer = C.ngx_http_lua_ffi_get_req_ssl_pointer(base.get_request())
  if pointer == nil or C.SSL_set_session_id_context(pointer, context, #context) ~= 1 then
    ngx.log(ngx.ERR, "ingresskit: cannot bind the TLS session to its server name")
    return ngx.exit(ngx.ERROR)
  end
end

-- ssl_certificate_by_lua: asks for a client certificate when the server name's host requires one.
-- A closed policy (no CA) asks for none: every request for it gets 403 anyway.
function _M.ask(name)
  local policy = _M.policy_for(name)
  if policy == nil or policy.ca == "" then return end
  local chain, err = ca_chain(policy)
  local ok
  if chain then ok, err = ssl.verify_client(chain, policy.depth) end
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: cannot ask ", store.escape(name), " for a client certificate: ", err)
    return ngx.exit(ngx.ERROR)
  end
end

-- Whether a verification verdict lets the request through under `mode`.
local function is_admitted(mode, verdict)
  if verdict == "SUCCESS" then return true end
  if mode == "on" then return false end
  if verdict == "NONE" then return true end
  if mode == "optional" then return false end
  return UNKNOWN_ISSUER[str_sub(verdict, 8)] == true
end

-- A request over TLS for a host with `policy`: nil when it may go on (the ssl-client-* request
-- headers set for the backend, replacing any the client sent), else the status to end it with,
-- or nil and the error page to redirect to.
function _M.check(policy, host)
  if policy.ca == "" then return 403 end
  local server_name = ngx_var.ssl_server_name
  if server_name == nil or str_lower(server_name) ~= host then return 421 end
  local verdict = ngx_var.ssl_client_verify
  if not is_admitted(policy.verify, verdict) then
    if policy.errorPage then return nil, policy.errorPage end
    return 400
  end
  local subject = ngx_var.ssl_client_s_dn
  if policy.subject and (subject == nil or not re_find(subject, policy.subject, "jo")) then return 403 end
  req.set_header("ssl-client-verify", verdict)
  req.set_header("ssl-client-subject-dn", subject)
  req.set_header("ssl-client-issuer-dn", ngx_var.ssl_client_i_dn)
  req.set_header("ssl-client-cert", policy.pass and ngx_var.ssl_client_escaped_cert or nil)
  return nil
end

return _M
