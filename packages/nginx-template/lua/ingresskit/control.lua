-- The control endpoint of an ingresskit nginx, served on a unix socket only.
--
-- POST /configuration/data takes { full?, set?, delete? } (see createDataPlaneUpdate). Every
-- entry is validated and every regex compiled before anything is stored; then the entries are
-- written (backends, certificates and shared policies first, then TLS bindings and listeners,
-- then hosts; deletes of hosts before those of the others) so a worker rebuilding concurrently
-- never sees a host before what it refers to. The keys a push changed go into the change log under
-- its version, and the version is bumped last: workers pick the change up on their next request.
--
-- Each push also keeps the content digest (ingresskit.digest) up to date and answers it, with the
-- version and digest it followed. GET /configuration/digest recomputes the digest from the stored
-- entries: { version, digest, stored, entries }, or 409 while a push is being applied.
--
-- GET /configuration/status answers { instance, version, configurationLoads, confHash, workerPid,
-- sharedDictCapacity, sharedDictFree }.
-- `instance` is made when the shared dict is created: it survives reloads (HUP) and changes when
-- nginx restarts with an empty dict, which is how the controller learns to push everything again.

local cjson = require("cjson.safe")
local digests = require("ingresskit.digest")
local store = require("ingresskit.store")
local validate = require("ingresskit.validate")

local ngx = ngx
local pairs = pairs
local ipairs = ipairs
local type = type
local str_sub = string.sub
local str_format = string.format
local table_sort = table.sort

local _M = {}

local LOCK_KEY = "lock"
-- Above this many changed keys, workers rebuild their tables rather than re-read each key.
local REBUILD_ABOVE = 1000
-- Entries checked or written between two yields to the event loop (a few milliseconds of work).
local YIELD_EVERY = 500
-- A push that dies mid-way (a worker crash) must not block every later one for long.
local LOCK_SECONDS = 60

local function dict()
  return ngx.shared.ingresskit
end

local function respond(status, body)
  ngx.status = status
  ngx.header["Content-Type"] = "application/json"
  ngx.say(cjson.encode(body))
  return ngx.exit(ngx.HTTP_OK)
end

local function random_id()
  local file = io.open("/dev/urandom", "rb")
  local bytes = file and file:read(16)
  if file then file:close() end
  if not bytes or #bytes ~= 16 then
    -- Not random enough to be secret, only to tell two starts apart; /dev/urandom is the norm.
    bytes = tostring(ngx.now()) .. tostring(math.random()) .. tostring({})
  end
  return (bytes:gsub(".", function(char) return str_format("%02x", char:byte()) end):sub(1, 32))
end

-- init_by_lua, in the master, on every start and every reload.
function _M.init(params)
  store.configure(params)
  local shared = dict()
  -- add: only the first time the dict exists; a reload keeps the dict and so the instance. The
  -- version starts at 0, meaning nothing was pushed yet; pushes only incr it.
  shared:safe_add("instance", random_id())
  shared:safe_add("version", 0)
  -- Made here at its final size, so that each push replaces it in place and cannot run out of room.
  shared:safe_add("digest", digests.to_hex(digests.empty()))
  local ok, err = shared:incr("configuration_loads", 1, 0)
  if not ok then ngx.log(ngx.ERR, "ingresskit: cannot count configuration loads: ", err) end
  -- Loaded here so the workers share the compiled modules.
  require("ingresskit.router")
  require("ingresskit.balancer")
  require("ingresskit.certificates")
end

local function read_body()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if body then return body end
  local file = ngx.req.get_body_file()
  if not file then return nil end
  local handle = io.open(file, "rb")
  if not handle then return nil end
  body = handle:read("*a")
  handle:close()
  return body
end

-- 0: listeners, backends and certificates; 1: TLS bindings; 2: hosts (they refer to the others).
local function write_rank(key)
  local kind = key:match("^(%a+):")
  if kind == "host" then return 2 end
  if kind == "tls" then return 1 end
  return 0
end

local function sorted_keys(set)
  local keys = {}
  for key in pairs(set) do keys[#keys + 1] = key end
  table_sort(keys, function(a, b)
    local ra, rb = write_rank(a), write_rank(b)
    if ra ~= rb then return ra < rb end
    return a < b
  end)
  return keys
end

local function write(full, set, delete)
  local shared = dict()
  local written = {}
  local previous = {}
  local previous_digest = shared:get("digest")
  local digest = digests.from_hex(previous_digest)
  local keys = sorted_keys(set)
  for position, key in ipairs(keys) do
    local value = cjson.encode(set[key])
    local name = "d:" .. key
    local old = shared:get(name)
    if old ~= value then
      previous[#previous + 1] = { name, old }
      -- safe_set: the dict must never evict routes to make room (an LRU would drop hosts silently).
      local ok, err = shared:safe_set(name, value)
      if not ok then
        -- Put back what this push overwrote, and make workers re-read those keys.
        for index = #previous, 1, -1 do
          local entry = previous[index]
          if entry[2] == nil then shared:delete(entry[1]) else shared:safe_set(entry[1], entry[2]) end
        end
        local touched = {}
        for index, entry in ipairs(previous) do touched[index] = str_sub(entry[1], 3) end
        if #touched > 0 then
          local version = shared:get("version") + 1
          shared:safe_set("log:" .. version, cjson.encode(touched))
          shared:incr("version", 1)
        end
        return nil, err
      end
      written[#written + 1] = key
      if old ~= nil then digests.toggle(digest, key, old) end
      digests.toggle(digest, key, value)
    end
    if position % YIELD_EVERY == 0 then ngx.sleep(0) end
  end
  local stored = #written
  local removals = {}
  if full then
    for _, name in ipairs(shared:get_keys(0)) do
      if str_sub(name, 1, 2) == "d:" and set[str_sub(name, 3)] == nil then removals[#removals + 1] = str_sub(name, 3) end
    end
  else
    for _, key in ipairs(delete) do
      if set[key] == nil then removals[#removals + 1] = key end
    end
  end
  -- Hosts go before what they refer to.
  table_sort(removals, function(a, b)
    local ra, rb = write_rank(a), write_rank(b)
    if ra ~= rb then return ra > rb end
    return a < b
  end)
  local deleted = 0
  for _, key in ipairs(removals) do
    local old = shared:get("d:" .. key)
    if old ~= nil then
      digests.toggle(digest, key, old)
      shared:delete("d:" .. key)
      written[#written + 1] = key
      deleted = deleted + 1
    end
  end
  local version = shared:get("version") + 1
  -- A missing log entry makes workers rebuild everything, so failing to write one is safe. A
  -- push that changed many keys (a full push after a restart, say) is logged as "*": workers
  -- rebuild, which is then as cheap; one that changed few (a resync) is applied key by key.
  local log = "*"
  if #written <= REBUILD_ABOVE then log = #written == 0 and "[]" or cjson.encode(written) end
  shared:safe_set("log:" .. version, log)
  local digest_text = digests.to_hex(digest)
  shared:safe_set("digest", digest_text)
  -- incr of an existing number never allocates, so it cannot fail or evict anything.
  shared:incr("version", 1)
  shared:delete("log:" .. (version - store.LOG_LIMIT - 1))
  return {
    version = version,
    stored = stored,
    deleted = deleted,
    digest = digest_text,
    previousVersion = version - 1,
    previousDigest = previous_digest,
  }
end

-- content_by_lua of POST /configuration/data.
function _M.handle_data()
  if ngx.req.get_method() ~= "POST" then return respond(405, { message = "use POST" }) end
  local body = read_body()
  if not body or body == "" then return respond(400, { message = "empty body" }) end
  local update, decode_error = cjson.decode(body)
  if type(update) ~= "table" then return respond(400, { message = "invalid JSON: " .. tostring(decode_error) }) end
  local full, set, delete = update.full, update.set or {}, update.delete or {}
  if full ~= nil and type(full) ~= "boolean" then return respond(400, { message = "full must be a boolean" }) end
  if type(set) ~= "table" then return respond(400, { message = "set must be an object" }) end
  if not validate.is_array(delete) then return respond(400, { message = "delete must be an array" }) end
  for key in pairs(update) do
    if key ~= "full" and key ~= "set" and key ~= "delete" then
      return respond(400, { message = "unknown field " .. tostring(key) })
    end
  end
  local rejected = {}
  local shared = dict()
  local work = 0
  -- Each shared policy is checked once, however many routes name it; a route naming one that
  -- is refused, or neither pushed nor stored, is refused with that reason. The policy is answered
  -- too: a route's checks read fields of it (a mirror needs a mirroring profile).
  local policy_checks = {}
  local function names_policy(id)
    local check = policy_checks[id]
    if check == nil then
      local key = "policy:" .. id
      local entry = set[key]
      local problem
      if entry ~= nil then
        local found = {}
        validate.entry(key, entry, found)
        problem = found[1] ~= nil and ("its policy " .. id .. " is refused: " .. found[1].message) or false
      else
        entry = cjson.decode(shared:get("d:" .. key) or "")
        problem = type(entry) ~= "table" and ("names policy " .. id .. ", which is neither pushed nor stored") or false
      end
      check = { problem = problem, policy = not problem and entry or nil }
      policy_checks[id] = check
    end
    return check.problem or nil, check.policy
  end
  for key, entry in pairs(set) do
    if str_sub(key, 1, 7) == "policy:" and type(entry) == "table" and validate.is_key(key) then
      local problem = names_policy(str_sub(key, 8))
      if problem then rejected[#rejected + 1] = { key = key, message = problem } end
    else
      validate.entry(key, entry, rejected, function()
        return shared:get("d:" .. key) == cjson.encode(entry)
      end, names_policy)
    end
    -- A large push must not keep this worker's other requests waiting: let them run now and
    -- then (a certificate costs about as much to check as a hundred other entries).
    work = work + (str_sub(key, 1, 5) == "cert:" and 100 or 1)
    if work >= YIELD_EVERY then
      work = 0
      ngx.sleep(0)
    end
  end
  for index, key in ipairs(delete) do
    if not validate.is_key(key) then
      rejected[#rejected + 1] = { key = type(key) == "string" and key or ("delete[" .. index .. "]"), message = "unknown key" }
    end
  end
  if #rejected > 0 then
    table_sort(rejected, function(a, b)
      if a.key ~= b.key then return a.key < b.key end
      return (a.routeId or "") < (b.routeId or "")
    end)
    return respond(422, { rejected = rejected })
  end
  local locked, lock_error = shared:safe_add(LOCK_KEY, true, LOCK_SECONDS)
  if not locked then
    if lock_error == "exists" then return respond(409, { message = "another push is being applied; retry" }) end
    return respond(507, { message = "shared dict ingresskit is full: " .. tostring(lock_error) })
  end
  local ok, result, err = pcall(write, full == true, set, delete)
  shared:delete(LOCK_KEY)
  if not ok then
    ngx.log(ngx.ERR, "ingresskit: push failed: ", result)
    return respond(500, { message = "push failed: " .. tostring(result) })
  end
  if not result then
    return respond(507, {
      message = "shared dict ingresskit is full (" .. tostring(err) .. "); nothing of this push was kept. "
        .. "Raise the sharedDictSize option.",
    })
  end
  return respond(201, result)
end

-- content_by_lua of GET /configuration/digest.
function _M.handle_digest()
  local shared = dict()
  -- A push in progress would be seen half-written: the caller asks again later.
  local locked, lock_error = shared:safe_add(LOCK_KEY, true, LOCK_SECONDS)
  if not locked then
    if lock_error == "exists" then return respond(409, { message = "a push is being applied; retry" }) end
    return respond(507, { message = "shared dict ingresskit is full: " .. tostring(lock_error) })
  end
  local ok, digest, entries = pcall(digests.of_dict, shared, YIELD_EVERY)
  shared:delete(LOCK_KEY)
  if not ok then return respond(500, { message = "digest failed: " .. tostring(digest) }) end
  return respond(200, {
    version = shared:get("version") or 0,
    digest = digests.to_hex(digest),
    stored = shared:get("digest") or "",
    entries = entries,
  })
end

-- content_by_lua of GET /configuration/status.
function _M.handle_status()
  local shared = dict()
  return respond(200, {
    instance = shared:get("instance") or "",
    version = shared:get("version") or 0,
    configurationLoads = shared:get("configuration_loads") or 0,
    confHash = store.conf.conf_hash,
    workerPid = ngx.worker.pid(),
    -- free_space counts whole free pages only, so it is a lower bound.
    sharedDictCapacity = tonumber(shared:capacity()),
    sharedDictFree = tonumber(shared:free_space()),
  })
end

return _M
