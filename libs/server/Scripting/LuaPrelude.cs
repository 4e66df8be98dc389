// LuaPrelude: the Lua source that turns a fresh Lua 5.4 state into Redis's script environment. It runs once per state,
// given a table of C# primitives (LuaRuntime), and leaves:
//  - the redis table (call, pcall, error_reply, status_reply, sha1hex, log, setresp, set_repl, replicate_commands,
//    breakpoint, debug, register_function, the LOG_* and REPL_* constants, REDIS_VERSION[_NUM]);
//  - Lua 5.1 names real scripts use: unpack, table.getn, loadstring (text chunks only, in the sandbox), math.pow,
//    gcinfo, getfenv/setfenv stand-ins, the bit library (LuaJIT/BitOp semantics on 32-bit values), and cjson, cmsgpack and
//    struct wrappers over C# primitives;
//  - the sandbox (see "sandbox" below) and the kill hook (see "kill hook").
// Invariants:
//  - C# primitives never raise Lua errors themselves (a longjmp must not cross managed frames); they return
//    (false, err) and the wrappers here raise.
//  - Every table scripts share is read-only in fact: scripts see empty proxies (lock) whose __index is the real table,
//    and no path (pairs, next, rawget, rawset, getmetatable, the string metatable, load, getfenv) hands out a real one.
//    The globals scripts see are such a proxy too (the environment, ENV), so even an existing global cannot be rebound.
//  - No object is ever marked for finalization: setmetatable hides __gc while it sets (Lua 5.1 semantics for tables,
//    as Redis), so lua_close and the GC never run script code (a finalizer runs with hooks off and could reach the
//    server from another script or after the state is gone).
//  - Every thread that runs script code carries the kill hook (LuaRuntime installs it on the threads it makes,
//    coroutine.create/wrap here on the script's own); code that Lua runs with hooks off (a message handler after an
//    error raised in a hook, __close when a dead thread is closed) is not reachable: xpcall calls its handler after
//    unwinding, coroutine.close is gone, and LuaRuntime never resets a thread that ended in error.
// Frames of this chunk ("@redis_lib") are skipped when an error's script line is looked up.
namespace Garnet.server.Scripting;

internal static class LuaPrelude
{
    public const string ChunkName = "@redis_lib";

    public const string Source = """
local P = ...
-- Captured before the sandbox replaces or removes them (debug.sethook for the kill hook).
local error, type, tostring, tonumber, select, rawget, next, pcall = error, type, tostring, tonumber, select, rawget, next, pcall
local setmetatable, raw_rawset, load, string, table, math, coroutine = setmetatable, rawset, load, string, table, math, coroutine
local pack, unpack, sethook, collectgarbage = table.pack, table.unpack, debug.sethook, collectgarbage
local G = _G -- the real globals: scripts see them through ENV (below); C# sets KEYS and ARGV here

-- ---- redis ----
local redis = {}
local rcall = P.call
function redis.call(...)
  local ok, v = rcall(true, ...)
  if not ok then error(v, 0) end
  return v
end
function redis.pcall(...)
  local _, v = rcall(false, ...)
  return v
end
-- Redis's luaPushError: an error table {err = "CODE message"}: "-CODE message" keeps its code ("ERR" when the text has
-- no space), any other text gets "ERR "; the message loses leading and trailing CR/LF.
local function error_table(text)
  local code, msg = 'ERR', text
  if text:sub(1, 1) == '-' then
    local space = text:find(' ', 1, true)
    if space then code, msg = text:sub(2, space - 1), text:sub(space + 1) else msg = text:sub(2) end
  end
  msg = msg:gsub('^[\r\n]+', ''):gsub('[\r\n]+$', '')
  return {err = code .. ' ' .. msg}
end
-- Redis's luaError after luaPushError: the table is raised (no position: a table carries none; the reply gets the
-- script's line from where it was raised).
local function raise(text) error(error_table(text), 0) end
-- lua_tonumber then a C int cast: numbers and numeric strings truncated toward zero, anything else 0.
local function c_int(v)
  v = tonumber(v) or 0
  if v ~= v then return 0 end
  return v >= 0 and math.floor(v) or math.ceil(v)
end
function redis.error_reply(...)
  local msg = ...
  if select('#', ...) ~= 1 or type(msg) ~= 'string' then return error_table('wrong number or type of arguments') end
  if msg:sub(1, 1) ~= '-' then msg = '-' .. msg end
  return error_table(msg)
end
function redis.status_reply(...)
  local msg = ...
  if select('#', ...) ~= 1 or type(msg) ~= 'string' then return error_table('wrong number or type of arguments') end
  return {ok = msg}
end
function redis.sha1hex(...)
  if select('#', ...) ~= 1 then raise('wrong number of arguments') end
  local s = ...
  if type(s) ~= 'string' and type(s) ~= 'number' then s = '' end -- lua_tolstring gives NULL: the empty input's digest
  return P.sha1hex(tostring(s))
end
redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING = 0, 1, 2, 3
function redis.log(...)
  local n, level = select('#', ...), ...
  if n < 2 then raise('redis.log() requires two arguments or more.') end
  if tonumber(level) == nil then raise('First argument must be a number (log level).') end
  level = c_int(level)
  if level < 0 or level > 3 then raise('Invalid debug level.') end
  local parts = {}
  for i = 2, n do
    local v = select(i, ...)
    if type(v) == 'string' or type(v) == 'number' then parts[#parts + 1] = tostring(v) end
  end
  P.log(level, table.concat(parts, ' '))
end
function redis.setresp(...)
  if select('#', ...) ~= 1 then raise('redis.setresp() requires one argument.') end
  local v = c_int((...))
  if v ~= 2 and v ~= 3 then raise('RESP version must be 2 or 3.') end
  P.setresp(v)
end
redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL = 0, 1, 2, 2, 3
function redis.set_repl(...)
  if select('#', ...) ~= 1 then raise('redis.set_repl() requires one argument.') end
  local flags = c_int((...))
  if flags < 0 or flags > 3 then raise('Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.') end
end
function redis.replicate_commands() return true end
function redis.breakpoint() return false end
function redis.debug() end
function redis.acl_check_cmd(...)
  local ok, v = P.aclcheck(...)
  if not ok then raise(v) end
  return v
end
redis.REDIS_VERSION = P.version
redis.REDIS_VERSION_NUM = P.versionnum

-- functions: register_function is only usable while FUNCTION LOAD runs the library (P.loading()).
local registered
function redis.register_function(...)
  if not registered then error('redis.register_function can only be called on FUNCTION LOAD command', 2) end
  local n = select('#', ...)
  if n < 1 or n > 2 then error('wrong number of arguments to redis.register_function', 2) end
  local name, cb, flags, desc
  if n == 2 then
    name, cb = ...
    if type(name) ~= 'string' then error('first argument to redis.register_function must be a string', 2) end
    if type(cb) ~= 'function' then error('second argument to redis.register_function must be a function', 2) end
    flags = {}
  else
    local t = ...
    if type(t) ~= 'table' then error('calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).', 2) end
    flags = {}
    for k, v in pairs(t) do
      local key = type(k) == 'string' and k:lower() or k
      if key == 'function_name' then
        if type(v) ~= 'string' then error('function_name argument given to redis.register_function must be a string', 2) end
        name = v
      elseif key == 'description' then
        if type(v) ~= 'string' then error('description argument given to redis.register_function must be a string', 2) end
        desc = v
      elseif key == 'callback' then
        if type(v) ~= 'function' then error('callback argument given to redis.register_function must be a function', 2) end
        cb = v
      elseif key == 'flags' then
        if type(v) ~= 'table' then error('flags argument to redis.register_function must be a table representing function flags', 2) end
        for _, f in ipairs(v) do
          if f ~= 'no-writes' and f ~= 'allow-oom' and f ~= 'allow-stale' and f ~= 'no-cluster' and f ~= 'allow-cross-slot-keys' then
            error('unknown flag given', 2)
          end
          flags[#flags + 1] = f
        end
      else
        error('unknown argument given to redis.register_function', 2)
      end
    end
    if not name then error('redis.register_function must get a function name argument', 2) end
    if not cb then error('redis.register_function must get a callback argument', 2) end
  end
  local err = P.checkfunction(name)
  if err then error(err, 2) end
  for _, r in ipairs(registered) do
    if r.name == name then error('Function already exists in the library', 2) end
  end
  registered[#registered + 1] = {name = name, callback = cb, flags = flags, description = desc}
end
-- Used by LuaRuntime while FUNCTION LOAD runs a library's code: the functions it registers.
local function begin_load() registered = {} end
local function end_load() local r = registered; registered = nil; return r end

-- ---- Lua 5.1 names ----
G.unpack = table.unpack
table.getn = function(t) return #t end
math.pow = function(x, y) return x ^ y end
math.mod = math.fmod
G.gcinfo = function() return collectgarbage('count') // 1 end
G.setfenv = function(f) return f end

-- ---- bit (BitOp: 32-bit two's complement results) ----
local function tobit(x) -- x: a number or a numeric string (barg checked)
  x = math.tointeger(x) or math.floor(tonumber(x))
  x = x & 0xffffffff
  if x >= 0x80000000 then x = x - 0x100000000 end
  return x
end
-- An argument: LuaBitOp's barg (luaL_checknumber: numbers and numeric strings), its error raised at the script's call
-- (level 3: barg, the bit function, the script; the functions never tail-call barg).
local function barg(name, i, n, x)
  if tonumber(x) == nil then
    error(string.format("bad argument #%d to '%s' (number expected, got %s)", i, name, i > n and 'no value' or type(x)), 3)
  end
  return tobit(x)
end
local function fold(name, op)
  return function(...)
    local n = select('#', ...)
    local r = barg(name, 1, n, (...))
    for i = 2, n do r = op(r, barg(name, i, n, (select(i, ...)))) end
    return tobit(r)
  end
end
local function shift(name, op)
  return function(...)
    local n, x, s = select('#', ...), ...
    x, s = barg(name, 1, n, x), barg(name, 2, n, s)
    return tobit(op(x, s & 31))
  end
end
local bit = {}
bit.tobit = function(...) return (barg('tobit', 1, select('#', ...), (...))) end
bit.bnot = function(...) return tobit(~barg('bnot', 1, select('#', ...), (...))) end
bit.band = fold('band', function(a, b) return a & b end)
bit.bor = fold('bor', function(a, b) return a | b end)
bit.bxor = fold('bxor', function(a, b) return a ~ b end)
bit.lshift = shift('lshift', function(x, s) return (x & 0xffffffff) << s end)
bit.rshift = shift('rshift', function(x, s) return (x & 0xffffffff) >> s end)
bit.arshift = shift('arshift', function(x, s) return x >> s | (x < 0 and ~(0xffffffff >> s) or 0) end)
bit.rol = shift('rol', function(x, s) local u = x & 0xffffffff return (u << s) | (u >> (32 - s)) end)
bit.ror = shift('ror', function(x, s) local u = x & 0xffffffff return (u >> s) | (u << (32 - s)) end)
bit.bswap = function(...)
  local u = barg('bswap', 1, select('#', ...), (...)) & 0xffffffff
  return tobit(((u & 0xff) << 24) | ((u & 0xff00) << 8) | ((u >> 8) & 0xff00) | (u >> 24))
end
bit.tohex = function(...)
  local given, x, n = select('#', ...), ...
  x = barg('tohex', 1, given, x)
  if given >= 2 then n = barg('tohex', 2, given, n) else n = 8 end
  local upper = n < 0
  if upper then n = -n end
  if n > 8 then n = 8 end
  local s = string.format(upper and '%08X' or '%08x', x & 0xffffffff)
  return s:sub(9 - n)
end

-- ---- cjson, cmsgpack, struct: C# primitives return (true, ...) or (false, message) ----
local function wrap(f)
  return function(...)
    local r = table.pack(f(...))
    if not r[1] then error(r[2], 2) end
    return table.unpack(r, 2, r.n)
  end
end
local cjson = {
  encode = wrap(P.json_encode), decode = wrap(P.json_decode),
  encode_keep_buffer = function() end, encode_max_depth = function() end, decode_max_depth = function() end,
  encode_number_precision = function() end, encode_invalid_numbers = function() end, decode_invalid_numbers = function() end,
  encode_sparse_array = function() end,
}
cjson.null = P.json_null
local cmsgpack = {
  pack = wrap(P.msgpack_pack), unpack = wrap(P.msgpack_unpack),
  unpack_one = wrap(P.msgpack_unpack_one), unpack_limit = wrap(P.msgpack_unpack_limit),
}
local struct = { pack = wrap(P.struct_pack), unpack = wrap(P.struct_unpack), size = wrap(P.struct_size) }

-- ---- kill hook ----
-- A count hook on every thread that runs script code (Lua 5.4 hooks are per thread). It asks C# (P.poll, which never
-- raises) whether the run must stop (SCRIPT KILL, FUNCTION KILL, SHUTDOWN, FUNCTION LOAD timeout); if so it raises the
-- reason as a Lua error, which only crosses C frames (the debug library's hookf, luaD_hook), so it works where a yield
-- cannot (sort comparators, gsub callbacks, metamethods called from C, load readers), and switches the thread to a hook
-- on every instruction, so a pcall that catches the error is stopped again at its next instruction.
local poll, every = P.poll, P.hookevery
local hook
hook = function()
  local reason = poll()
  if reason then
    sethook(hook, '', 1)
    error(reason, 0)
  end
end
local function hook_thread(co) sethook(co, hook, '', every) end

-- ---- string.find/match/gmatch/gsub on the C# matcher (LuaPatterns) ----
-- Lua's own matcher is one C call the kill hook cannot reach; P.str_* match in C# and stop when the run must stop.
-- They return (true, results...), (false, message) to raise (with no position, as the C library's errors), or (nil,
-- the arguments) when an argument is of a type the C function refuses: that function is then called with the same
-- arguments and raises Lua's own message before it matches anything. gsub with a table or a function loops here over
-- P.str_scan, so the script's code runs as ordinary hooked Lua.
local str_find, str_match, str_gmatch, str_scan, str_gsub = P.str_find, P.str_match, P.str_gmatch, P.str_scan, P.str_gsub
local find, match, gmatch, gsub, ssub, sbyte, concat = string.find, string.match, string.gmatch, string.gsub, string.sub, string.byte, table.concat
local function same(...) return ... end
-- Calls the C function by its own name (so an argument error names it as Lua would), and raises its error at the
-- script's call: the caller tail-calls, so level 2 is the script.
local function native(f, ...)
  local r = pack(pcall(f, ...))
  if r[1] then return unpack(r, 2, r.n) end
  local e = r[2]
  if type(e) == 'string' then
    local _, stop = find(e, '^redis_lib:%d+: ')
    if stop then e = ssub(e, stop + 1) end
  end
  error(e, 2)
end
local function native_find(...) return same(find(...)) end
local function native_match(...) return same(match(...)) end
local function native_gmatch(...) return same(gmatch(...)) end
local function native_gsub(...) return same(gsub(...)) end
-- level: where the script called the function (the C library's errors carry its line); the wrappers tail-call, so
-- that is 3 from fail for find/match/gmatch's iterator, 4 from gsub's loop.
local function fail(msg, level)
  local reason = poll()
  if reason then
    sethook(hook, '', 1)
    error(reason, 0)
  end
  error(msg, level)
end
local function find_done(ok, ...)
  if ok then return ... end
  if ok == nil then return native(native_find, ...) end
  fail((...), 3)
end
local function match_done(ok, ...)
  if ok then return ... end
  if ok == nil then return native(native_match, ...) end
  fail((...), 3)
end
string.find = function(...) return find_done(str_find(...)) end
string.match = function(...) return match_done(str_match(...)) end
local function gmatch_iterator(ok, ...)
  if ok == nil then return native(native_gmatch, ...) end
  local src, s, p = ...
  local lastmatch = -1
  local function step(found, start, e, ...)
    if not found then fail(start, 3) end
    if start == nil then return end
    src, lastmatch = e, e
    return ...
  end
  return function() return step(str_scan(s, p, src, lastmatch, false)) end
end
string.gmatch = function(...) return gmatch_iterator(str_gmatch(...)) end
local function gsub_lua(maxn, s, p, repl)
  local anchor = sbyte(p, 1) == 94 -- '^'
  local isfunction = type(repl) == 'function'
  local parts, np, n, src, lastmatch, changed = {}, 0, 0, 0, -1, false
  local function add(found, start, e, first, ...)
    if not found then fail(start, 4) end
    if start == nil then return false end
    local v
    if isfunction then v = repl(first, ...) else v = repl[first] end
    if not v then v = ssub(s, start + 1, e)
    elseif type(v) == 'string' or type(v) == 'number' then changed = true
    else fail('invalid replacement value (a ' .. type(v) .. ')', 4) end
    parts[np + 1], parts[np + 2] = ssub(s, src + 1, start), v
    np, n, src, lastmatch = np + 2, n + 1, e, e
    return true
  end
  while n < maxn do
    if not add(str_scan(s, p, src, lastmatch, anchor, not isfunction)) or anchor then break end
  end
  if not changed then return s, n end
  parts[np + 1] = ssub(s, src + 1)
  return concat(parts), n
end
local function gsub_done(ok, r, ...)
  if ok then
    if r ~= nil then return r, ... end
    return gsub_lua(...)
  end
  if ok == nil then return native(native_gsub, r, ...) end
  fail(r, 3)
end
string.gsub = function(...) return gsub_done(str_gsub(...)) end

-- ---- sandbox ----
local function readonly_error() error('Attempt to modify a readonly table', 2) end
local real = {} -- proxy -> the table it shows (rawget and next read through it; rawset refuses it)
local function lock(t)
  local proxy = {}
  setmetatable(proxy, {
    __index = t, __newindex = readonly_error, __len = function() return #t end,
    __pairs = function() return function(_, k) return next(t, k) end, proxy, nil end, __metatable = false,
  })
  real[proxy] = t
  return proxy
end

-- The raw functions are called under their own names (an argument error then names them as Lua does) and raise at the
-- script's call (native, above).
local function native_setmetatable(...) return same(setmetatable(...)) end
local function native_rawset(...) local rawset = raw_rawset return same(rawset(...)) end
local function native_rawget(...) return same(rawget(...)) end
local function native_next(...) return same(next(...)) end
-- Tables: Lua 5.1 semantics for __gc (no effect), so nothing is ever finalized. Lua 5.4 marks an object for finalization
-- only when its metatable has __gc at setmetatable time; a __gc added later is ignored.
G.setmetatable = function(...)
  local t, mt = ...
  local gc = type(t) == 'table' and type(mt) == 'table' and rawget(mt, '__gc')
  if gc == nil or gc == false then return native(native_setmetatable, ...) end
  raw_rawset(mt, '__gc', nil)
  local r = pack(pcall(native_setmetatable, ...))
  raw_rawset(mt, '__gc', gc)
  if not r[1] then return native(error, r[2], 0) end -- raised again as native raises: at the script's call
  return r[2]
end
G.newproxy = function() return setmetatable({}, {}) end
G.rawset = function(t, ...)
  if real[t] then error('Attempt to modify a readonly table', 2) end
  if type(t) == 'table' and select('#', ...) >= 2 then return raw_rawset(t, ...) end
  return native(native_rawset, t, ...)
end
G.rawget = function(t, ...)
  if type(t) == 'table' and select('#', ...) >= 1 then return rawget(real[t] or t, ...) end
  return native(native_rawget, t, ...)
end
G.next = function(t, ...)
  if type(t) == 'table' then return next(real[t] or t, ...) end
  return native(native_next, t, ...)
end
-- Redis 7's pcall: an error that is a table with a string (or number) err field is caught as that value, as the string
-- errors of older versions were (redis.call raises {err = ...}).
local function pcall_done(ok, ...)
  if ok then return ok, ... end
  local e = ...
  if type(e) == 'table' then
    local msg = e.err
    if type(msg) == 'string' or type(msg) == 'number' then return false, msg end
  end
  return false, ...
end
G.pcall = function(...) return pcall_done(pcall(...)) end
-- A message handler runs after the stack unwinds, as a plain call: Lua runs xpcall's handler with hooks off when the
-- error was raised in a hook (a kill), where a loop in it could not be stopped.
G.xpcall = function(f, msgh, ...)
  local r = pack(pcall(f, ...))
  if r[1] then return unpack(r, 1, r.n) end
  local _, v = pcall(msgh, r[2])
  return false, v
end
-- The collector stays on and in its default mode for every later script.
G.collectgarbage = function(opt, ...)
  if opt == nil or opt == 'collect' or opt == 'count' or opt == 'step' or opt == 'isrunning' then return collectgarbage(opt, ...) end
  if opt == 'stop' or opt == 'restart' or opt == 'incremental' or opt == 'generational' or opt == 'setpause' or opt == 'setstepmul' then return 0 end
  return collectgarbage(opt, ...)
end
-- Coroutines the script makes carry the kill hook; wrap is written here (the C one closes a dead coroutine, running its
-- __close handlers with hooks off after a kill); close is gone for the same reason (Lua 5.1 has neither).
local co_create, co_resume = coroutine.create, coroutine.resume
local co = {
  create = function(f) local c = co_create(f) hook_thread(c) return c end,
  resume = co_resume, running = coroutine.running, status = coroutine.status, yield = coroutine.yield,
  isyieldable = coroutine.isyieldable,
}
co.wrap = function(f)
  local c = co.create(f)
  return function(...)
    local r = pack(co_resume(c, ...))
    if r[1] then return unpack(r, 2, r.n) end
    if type(r[2]) == 'string' then error(r[2], 2) end
    error(r[2], 0)
  end
end
G.coroutine = co

local os_clock = os.clock
G.os = { clock = os_clock }
G.io, G.debug, G.require, G.dofile, G.loadfile, G.print, G.utf8, G.package, G.warn = nil, nil, nil, nil, nil, nil, nil, nil, nil
G.redis, G.bit, G.cjson, G.cmsgpack, G.struct = redis, bit, cjson, cmsgpack, struct
for _, name in ipairs({'string', 'table', 'math', 'os', 'coroutine', 'redis', 'bit', 'cjson', 'cmsgpack', 'struct'}) do
  raw_rawset(G, name, lock(G[name]))
end
-- The string metatable: methods through the read-only string table; getmetatable('') gives a read-only view.
local string_mt = getmetatable('')
raw_rawset(string_mt, '__index', G.string)
raw_rawset(string_mt, '__metatable', lock(string_mt))

-- The environment scripts see: an empty proxy of the real globals; reading an unknown global is an error.
local ENV = lock(G)
G._G = ENV
G.getfenv = function() return ENV end
G.loadstring = function(s, name)
  if type(s) ~= 'string' then return nil, 'bad argument #1 to loadstring (string expected)' end
  return load(s, name or s, 't', ENV)
end
G.load = function(chunk, name, mode, env)
  return load(chunk, name, 't', env or ENV)
end
setmetatable(G, {
  __index = function(_, k) error("Script attempted to access nonexistent global variable '" .. tostring(k) .. "'", 2) end,
  __newindex = readonly_error,
  __metatable = false,
})
return begin_load, end_load, hook_thread, ENV, G
""";
}
