-- The value predicates of the checks of pushed entries (validate.lua and validate_policy.lua), and
-- the check of a list of such values.

local ngx_re = ngx.re

local type = type
local next = next
local ipairs = ipairs
local select = select
local math_floor = math.floor
local str_find = string.find
local str_sub = string.sub

local _M = {}

local function is_integer(value, min, max)
  return type(value) == "number" and value == math_floor(value) and value >= min and value <= max
end

local function is_string(value)
  return type(value) == "string"
end

-- An array: cjson gives a table with keys 1..n for an array, string keys for an object, and the
-- same empty table for [] and {}; it never mixes the two, so the first key tells them apart.
local function is_array(value)
  return type(value) == "table" and (value[1] ~= nil or next(value) == nil)
end

local function is_object(value)
  return type(value) == "table"
end

-- RFC 9110 tokens: what a header name may be.
local function is_token(value)
  return is_string(value) and #value > 0 and #value <= 256 and not str_find(value, "[^%w!#%$%%&'%*%+%-%.%^_`|~]")
end

-- No CR, LF, NUL or other control characters besides tab: nothing that splits a header.
local function is_field_value(value)
  return is_string(value) and #value <= 8192 and not str_find(value, "[%z\1-\8\10-\31\127]")
end

local function is_path(value)
  return is_string(value) and str_sub(value, 1, 1) == "/" and #value <= 8192 and not str_find(value, "[%z\1-\31\127]")
end

local function is_host(value)
  if not is_string(value) or #value == 0 or #value > 260 then return false end
  local name = value
  local bracketed = str_find(value, "^%[[%x:%.]+%]")
  if bracketed then
    local close = str_find(value, "]", 1, true)
    name = str_sub(value, close + 1)
    if name ~= "" then return str_find(name, "^:%d+$") ~= nil end
    return true
  end
  return str_find(name, "^[%w%.%-]+$") ~= nil or str_find(name, "^[%w%.%-]+:%d+$") ~= nil
end

-- Sets of allowed values (a vararg helper would keep these checks out of the JIT).
local function set_of(...)
  local set = {}
  for index = 1, select("#", ...) do set[select(index, ...)] = true end
  return set
end

-- Whether `list` is an array (a non-empty one with `non_empty`) whose items all pass `is_item`;
-- else reports "<field> must be an array" or "<field> <item_message>" for the first bad item.
local function check_list(list, field, report, is_item, item_message, non_empty)
  if not is_array(list) or (non_empty and #list == 0) then return report.fail(field .. " must be an array") end
  for _, item in ipairs(list) do
    if not is_item(item) then return report.fail(field .. " " .. item_message) end
  end
  return true
end

local function compile(pattern, options)
  if not is_string(pattern) then return "is not a string" end
  -- Without "o": checking must not fill the workers' regex cache.
  local _, _, err = ngx_re.find("", pattern, options)
  if err then return err end
  return nil
end

_M.is_integer = is_integer
_M.is_string = is_string
_M.is_array = is_array
_M.is_object = is_object
_M.is_token = is_token
_M.is_field_value = is_field_value
_M.is_path = is_path
_M.is_host = is_host
_M.set_of = set_of
_M.check_list = check_list
_M.compile = compile

return _M
