-- The local-only configuration endpoint of an ingresskit nginx.
--
-- The controller POSTs the backends payload (JSON made by backendsPayload()) to
-- /configuration/backends. It is checked, stored in a shared dict and given a new version
-- number; every worker's balancer notices the new version on its next request and decodes the
-- payload once. Shared dicts survive a reload (HUP), so endpoints posted before a reload stay.

local cjson = require("cjson.safe")

local _M = {}

local DICT_NAME = "ingresskit_configuration"
local BACKENDS_KEY = "backends"
local VERSION_KEY = "backends_version"
local LOADS_KEY = "configuration_loads"

local checksum = ""

local function dict()
  return ngx.shared[DICT_NAME]
end

local function respond(status, body)
  ngx.status = status
  ngx.header["Content-Type"] = "application/json"
  ngx.say(cjson.encode(body))
  return ngx.exit(status)
end

local function is_port(value)
  return type(value) == "number" and value >= 1 and value <= 65535 and value % 1 == 0
end

-- Returns nil when the decoded payload has the expected shape, else a message.
local function check_payload(payload)
  if type(payload) ~= "table" or type(payload.backends) ~= "table" then
    return "expected an object with a backends array"
  end
  for index, backend in ipairs(payload.backends) do
    if type(backend) ~= "table" or type(backend.name) ~= "string" or backend.name == "" then
      return "backends[" .. index .. "] needs a name"
    end
    if type(backend.endpoints) ~= "table" then
      return "backends[" .. index .. "] needs an endpoints array"
    end
    for position, endpoint in ipairs(backend.endpoints) do
      if type(endpoint) ~= "table" or type(endpoint.address) ~= "string" or not is_port(endpoint.port) then
        return "backends[" .. index .. "].endpoints[" .. position .. "] needs an address and a port"
      end
    end
  end
  return nil
end

-- Called from init_by_lua, in the master, on every start and every reload.
function _M.init(configuration_checksum)
  checksum = configuration_checksum
  local ok, err = dict():incr(LOADS_KEY, 1, 0)
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: cannot count configuration loads: ", err)
  end
end

-- The stored payload as a JSON string and its version; both nil before the first POST.
function _M.get_backends()
  local shared = dict()
  return shared:get(BACKENDS_KEY), shared:get(VERSION_KEY)
end

-- The version of the stored payload; compared by every worker on each proxied request.
function _M.get_backends_version()
  return dict():get(VERSION_KEY)
end

local function read_body()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if body then
    return body
  end
  local file = ngx.req.get_body_file()
  if not file then
    return nil
  end
  local handle = io.open(file, "rb")
  if not handle then
    return nil
  end
  body = handle:read("*a")
  handle:close()
  return body
end

-- content_by_lua handler of /configuration/backends: GET returns the payload, POST replaces it.
function _M.handle_backends()
  local method = ngx.req.get_method()
  if method == "GET" then
    local raw = dict():get(BACKENDS_KEY)
    if not raw then
      return respond(404, { message = "no backends posted yet" })
    end
    ngx.header["Content-Type"] = "application/json"
    ngx.print(raw)
    return ngx.exit(200)
  end
  if method ~= "POST" then
    return respond(405, { message = "use GET or POST" })
  end
  local body = read_body()
  if not body or body == "" then
    return respond(400, { message = "empty body" })
  end
  local payload, decode_error = cjson.decode(body)
  if payload == nil then
    return respond(400, { message = "invalid JSON: " .. tostring(decode_error) })
  end
  local problem = check_payload(payload)
  if problem then
    return respond(400, { message = problem })
  end
  local shared = dict()
  local ok, err = shared:set(BACKENDS_KEY, body)
  if not ok then
    return respond(500, { message = "cannot store backends: " .. tostring(err) })
  end
  local version = shared:incr(VERSION_KEY, 1, 0)
  return respond(201, { version = version, backends = #payload.backends })
end

-- content_by_lua handler of /configuration/status: what runs, for tests and health checks.
function _M.handle_status()
  local shared = dict()
  return respond(200, {
    checksum = checksum,
    configurationLoads = shared:get(LOADS_KEY) or 0,
    backendsVersion = shared:get(VERSION_KEY) or 0,
    workerPid = ngx.worker.pid(),
  })
end

return _M
