// ScriptAttackPrimitives: Lua statements that try to reach state scripts share across clients (library tables, the
// string metatable, globals, KEYS/ARGV, finalizers, coroutines, load, string.dump, the collector), and the script
// that wraps a random choice of them.
// Invariants: every primitive is one Lua statement run inside pcall, so a refused one does not stop the others; the
// values an attack plants are H (a function answering 'HIJACKED') and G (a finalizer); both write the key 'leak' when
// they run inside the victim's probe (the probe holds the key 'victim_running' while it runs), so a planted function
// that runs in another client's script is seen even when its return value is not. No primitive loops or allocates
// without bound.
namespace Garnet.test.Security;

public static class ScriptAttackPrimitives
{
    private static readonly string[] Libraries = ["string", "table", "math", "cjson", "cmsgpack", "struct", "bit", "redis", "_G"];

    private static readonly Dictionary<string, string[]> Members = new()
    {
        ["string"] = ["upper", "len", "format", "rep", "find", "sub", "byte", "char", "gsub"],
        ["table"] = ["sort", "concat", "insert", "remove", "unpack"],
        ["math"] = ["floor", "max", "huge", "random"],
        ["cjson"] = ["encode", "decode"],
        ["cmsgpack"] = ["pack", "unpack"],
        ["struct"] = ["pack", "unpack"],
        ["bit"] = ["band", "tohex"],
        ["redis"] = ["call", "pcall", "sha1hex", "status_reply", "error_reply", "log"],
        ["_G"] = ["tostring", "type", "pcall", "pairs", "unpack", "select", "error", "setmetatable", "getmetatable", "rawset", "tonumber"],
    };

    /// <summary>Statements that need no library/member substitution.</summary>
    private static readonly string[] Fixed =
    [
        // redis
        "local _, raw = pairs(redis); raw.call = H",
        "local raw = select(2, pairs(redis)); rawset(raw, 'pcall', H)",
        "for k, v in pairs(redis) do if type(v) == 'table' then rawset(v, 'x', H) end end",
        "local k, v = next(redis); if type(v) == 'table' then v.call = H end",
        "redis.setresp(3)",
        "redis.set_repl(redis.REPL_NONE)",
        "local t = redis.call('hgetall', 'nokey'); setmetatable(t, {__gc = G})",
        // the string metatable
        "getmetatable('').__index = {upper = H, len = H}",
        "getmetatable('').__index.upper = H",
        "rawset(getmetatable(''), '__index', setmetatable({}, {__index = function() return H end}))",
        "setmetatable(getmetatable(''), {__index = function() return H end})",
        "getmetatable('').__metatable = nil",
        "local mt = getmetatable(''); mt.__add = H; mt.__concat = H",
        "for k, v in pairs(getmetatable('').__index) do rawset(getmetatable('').__index, k, H) end",
        "for k in pairs(string) do string[k] = H end",
        "debug.setmetatable('', {__index = {upper = H}})",
        // globals
        "setmetatable(_G, nil)",
        "setmetatable(_G, {__index = function() return H end})",
        "getmetatable(_G).__index = function() return H end",
        "getmetatable(_G).__newindex = nil",
        "local mt = getmetatable(_G); if mt then rawset(mt, '__newindex', nil) end",
        "_ENV.string = {upper = H}",
        "rawset(_ENV, 'string', {upper = H})",
        "rawset(_G, 'cjson', {encode = H, decode = H})",
        "_G._G = nil",
        "for k in pairs(_G) do pcall(rawset, _G, k, H) end",
        "rawset(_G, 'victim_global', H)",
        // KEYS and ARGV
        "setmetatable(KEYS, {__index = H})",
        "setmetatable(ARGV, {__index = function() return 'stolen' end})",
        "rawset(_G, 'KEYS', {'stolen'})",
        "_G.ARGV = {'stolen'}",
        "KEYS[2] = 'stolen'",
        "table.insert(ARGV, 'stolen')",
        "setmetatable(KEYS, {__gc = G})",
        // finalizers
        "setmetatable({}, {__gc = G})",
        "local t = setmetatable({}, {__gc = G}); t = nil; collectgarbage()",
        "local p = newproxy(true); getmetatable(p).__gc = G",
        "for i = 1, 50 do setmetatable({}, {__gc = G}) end",
        "setmetatable({}, {__gc = function(o) setmetatable(o, {__gc = G}) end})",
        "local x <close> = setmetatable({}, {__close = G})",
        "setmetatable({}, {__mode = 'k', __gc = G})",
        "setmetatable({}, {__gc = function() redis.call = H end})",
        "setmetatable({}, {__gc = function() rawset(string, 'upper', H) end})",
        "setmetatable({}, {__gc = function() getmetatable('').__index = {upper = H} end})",
        "setmetatable({}, {__gc = function() local _, raw = pairs(redis); raw.call = H end})",
        // coroutines
        "local co = coroutine.create(function() redis.call = H end); coroutine.resume(co)",
        "coroutine.wrap(function() rawset(string, 'upper', H) end)()",
        "local co = coroutine.create(function() local x = setmetatable({}, {__gc = G}); coroutine.yield() end); coroutine.resume(co)",
        "local co = coroutine.wrap(function() while true do coroutine.yield(setmetatable({}, {__gc = G})) end end); co(); co()",
        "local co = coroutine.create(function() getmetatable('').__index.upper = H end); coroutine.resume(co)",
        "local co = coroutine.create(function() coroutine.yield(H) end); coroutine.resume(co); setmetatable({co}, {__gc = G})",
        "coroutine.close(coroutine.create(function() end))",
        // load, loadstring, string.dump
        "load('string.upper = function() return \"HIJACKED\" end')()",
        "loadstring('redis.call = function() return \"HIJACKED\" end')()",
        "load('return getmetatable(\"\")')().__index = {upper = H}",
        "load('rawset(string, \"upper\", function() return \"HIJACKED\" end)')()",
        "load('local _, raw = pairs(redis) raw.pcall = function() return \"HIJACKED\" end')()",
        "local e = setmetatable({}, {__index = _G}); load('string.upper = nil', 'n', 't', e)()",
        "load(string.dump(function() redis.call = H end))()",
        "load(string.dump(H), 'b', 'b')()",
        "local f = load(function() return nil end)",
        "local f = load('return ...'); f(H)",
        "string.dump(H)",
        // the collector
        "collectgarbage()",
        "collectgarbage('collect')",
        "collectgarbage('step', 100)",
        "collectgarbage('generational')",
        "collectgarbage('incremental')",
        "collectgarbage('count')",
    ];

    /// <summary>Templates applied to each library and member ({L}, {f}).</summary>
    private static readonly string[] PerMember =
    [
        "{L}.{f} = H",
        "rawset({L}, '{f}', H)",
        "local _, raw = pairs({L}); raw.{f} = H",
        "local raw = rawget({L}, '{f}'); if raw then rawset({L}, '{f}', H) end",
        "setmetatable({L}, {__index = function() return H end})",
        "getmetatable({L}).__index = {{f} = H}",
        "local mt = getmetatable({L}); if mt then rawset(mt, '__index', {{f} = H}) end",
        "local mt = getmetatable({L}); if mt then mt.__newindex = nil; {L}.{f} = H end",
        "for k, v in next, {L} do if k == '{f}' then rawset({L}, k, H) end end",
    ];

    /// <summary>Every primitive: the fixed ones and each member template applied to every library member.</summary>
    public static readonly string[] All = Fixed
        .Concat(from L in Libraries from f in Members[L] from t in PerMember select t.Replace("{L}", L).Replace("{f}", f))
        .Concat(
        [
            "cjson.encode_max_depth(1)", "cjson.decode_max_depth(1)", "cjson.encode_invalid_numbers(true)",
            "cjson.encode_keep_buffer(false)", "cjson.encode_sparse_array(true, 1, 1)", "cjson.encode_number_precision(1)",
            "math.randomseed(42)", "os.clock = H", "rawset(os, 'clock', H)",
        ])
        .ToArray();

    /// <summary>An attack script of the given primitives: H and G as described at the top, each statement in pcall.</summary>
    public static string Script(IEnumerable<string> primitives)
    {
        var sb = new System.Text.StringBuilder();
        sb.Append("local __orig = redis.call\n");
        sb.Append("local __mine = true\n");
        sb.Append("local function __leak(tag) if not __mine then pcall(function() if __orig('exists', 'victim_running') == 1 then __orig('set', 'leak', tag) end end) end end\n");
        sb.Append("local H = function(...) __leak('call') return 'HIJACKED' end\n");
        sb.Append("local G = function() __leak('gc') end\n");
        foreach (var p in primitives) sb.Append("pcall(function() ").Append(p).Append(" end)\n");
        sb.Append("__mine = false\n");
        sb.Append("return 1\n");
        return sb.ToString();
    }
}
