// LuaCallbacks: the C# primitives the prelude wraps (the P table): redis.call/pcall, sha1hex, log, setresp, acl_check_cmd,
// the function-name check of register_function, the cjson/cmsgpack/struct codecs, and the pattern matcher (LuaPatterns).
// Invariants: every primitive runs inside Guard, which lifts the memory cap (LuaAllocator.Unbounded) and turns a C#
// exception into the (false, message) result the prelude raises; no primitive calls lua_error, and no exception leaves a
// native entry point (it would end the process). Without a current runtime (no script, compile or load runs on this
// thread: e.g. while a state closes) a primitive only returns an error: redis.* works inside a running script only.
// P.poll (the kill hook's question) never fails: it answers nil or the reason to stop.
using System.Globalization;
using System.Security.Cryptography;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaCallbacks
{
    // Delegates handed to native code live as long as the process.
    private static readonly (string Name, LuaFunction Fn)[] s_functions =
    [
        ("poll", Poll),
        ("call", L => Guard(L, Call)),
        ("sha1hex", L => Guard(L, l => { LuaNative.Push(l.Handle, Sha1Hex(LuaNative.ToSpan(l.Handle, 1))); return 1; })),
        ("log", L => Guard(L, Log)),
        ("setresp", L => Guard(L, l => { if (LuaRuntime.Current?.Run is { } r) r.Resp = (int)l.ToInteger(1); return 0; })),
        ("aclcheck", L => Guard(L, AclCheck)),
        ("checkfunction", L => Guard(L, CheckFunction)),
        ("json_encode", L => Guard(L, LuaJson.Encode)),
        ("json_decode", L => Guard(L, LuaJson.Decode)),
        ("msgpack_pack", L => Guard(L, LuaMsgPack.Pack)),
        ("msgpack_unpack", L => Guard(L, LuaMsgPack.Unpack)),
        ("msgpack_unpack_one", L => Guard(L, LuaMsgPack.UnpackOne)),
        ("msgpack_unpack_limit", L => Guard(L, LuaMsgPack.UnpackLimit)),
        ("struct_pack", L => Guard(L, LuaStruct.Pack)),
        ("struct_unpack", L => Guard(L, LuaStruct.Unpack)),
        ("struct_size", L => Guard(L, LuaStruct.Size)),
        ("str_find", L => Guard(L, l => LuaPatterns.Find(l, find: true))),
        ("str_match", L => Guard(L, l => LuaPatterns.Find(l, find: false))),
        ("str_gmatch", L => Guard(L, LuaPatterns.GmatchInit)),
        ("str_scan", L => Guard(L, LuaPatterns.Scan)),
        ("str_gsub", L => Guard(L, LuaPatterns.Gsub)),
    ];

    public const string Version = "7.2.0";
    public const int VersionNum = 0x070200;

    /// <summary>Fills the table on top of l with the primitives (and the constants the prelude reads).</summary>
    public static void Register(Lua l)
    {
        foreach (var (name, fn) in s_functions)
        {
            l.PushCFunction(fn);
            l.SetField(-2, name);
        }
        l.PushString(Version);
        l.SetField(-2, "version");
        l.PushInteger(VersionNum);
        l.SetField(-2, "versionnum");
        l.PushLightUserData(IntPtr.Zero);
        l.SetField(-2, "json_null");
        l.PushInteger(LuaRuntime.HookInstructions);
        l.SetField(-2, "hookevery");
    }

    public const string NoScript = "ERR This Redis API can only be used inside a script invocation";

    private static int Guard(IntPtr state, Func<Lua, int> body)
    {
        try
        {
            var l = Lua.FromIntPtr(state);
            var rt = LuaRuntime.Current;
            if (rt is null) return Fail(l, NoScript);
            rt.EnterCallback();
            try { return body(l); }
            catch (Exception ex) { return Fail(l, ex is LuaArgumentException ? ex.Message : "internal error" + Session.InternalErrors.Detail(ex)); }
            finally { rt.ExitCallback(); }
        }
        catch { return 0; } // nothing pushed is taken as failure by the wrapper; an exception here would end the process
    }

    /// <summary>The kill hook's question (every LuaRuntime.HookInstructions instructions): nil, or why the running code
    /// must stop (the prelude's hook raises it). Never raises, never throws.</summary>
    private static int Poll(IntPtr state)
    {
        try
        {
            var rt = LuaRuntime.Current;
            if (rt?.Poll() is not { } reason) return 0;
            rt.EnterCallback();
            try { LuaNative.Push(state, System.Text.Encoding.UTF8.GetBytes(reason)); }
            finally { rt.ExitCallback(); }
            return 1;
        }
        catch { return 0; }
    }

    /// <summary>Pushes (false, message) for the prelude to raise.</summary>
    internal static int Fail(Lua l, string message)
    {
        l.PushBoolean(false);
        l.PushString(message);
        return 2;
    }

    /// <summary>redis.call (raise = true) / redis.pcall: (true, reply), or an error as {err=...}: (false, table) for
    /// redis.call to raise, (true, table) for redis.pcall to return. Every failure takes that form, the reply's
    /// conversion included; only the Guard's own failures (no runtime) are bare strings.</summary>
    private static int Call(Lua l)
    {
        int n = l.GetTop();
        bool raise = l.ToBoolean(1);
        var run = LuaRuntime.Current?.Run;
        string? error = null;
        byte[][]? args = null;
        if (n < 2) error = "ERR Please specify at least one argument for this redis lib call";
        else
        {
            args = new byte[n - 1][];
            for (int i = 2; i <= n && error is null; i++)
            {
                var t = l.Type(i);
                if (t == LuaType.Number) args[i - 2] = System.Text.Encoding.ASCII.GetBytes(NumberText(l, i));
                else if (t == LuaType.String) args[i - 2] = LuaNative.ToSpan(l.Handle, i).ToArray();
                else error = "ERR Lua redis lib command arguments must be strings or integers";
            }
        }
        if (error is null && run is null) error = "ERR redis.call and redis.pcall can only be used inside a script invocation";
        if (error is null)
        {
            try
            {
                var reply = run!.Call(args!, out error);
                if (error is null)
                {
                    bool isError = reply.Length > 0 && reply[0] == (byte)'-';
                    l.PushBoolean(!(isError && raise));
                    int pos = 0;
                    RespToLua.Push(l, reply, ref pos, run.Resp);
                    return 2;
                }
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                // The reply could not be made or converted (over lua-memory-limit, nested too deep, too large): an error
                // like any other, a table for redis.pcall to return and redis.call to raise.
                l.SetTop(n);
                error = "ERR " + (ex is LuaArgumentException ? ex.Message : "internal error" + Session.InternalErrors.Detail(ex));
            }
        }
        l.PushBoolean(!raise);
        l.CreateTable(0, 1);
        l.PushString(error);
        l.SetField(-2, "err");
        return 2;
    }

    /// <summary>A Lua number as an argument: integers as digits; other values as Lua 5.1's "%.14g" would print them.</summary>
    internal static string NumberText(Lua l, int index)
    {
        if (l.IsInteger(index)) return l.ToInteger(index).ToString(CultureInfo.InvariantCulture);
        double d = l.ToNumber(index);
        if (Math.Floor(d) == d && Math.Abs(d) < 1e15) return ((long)d).ToString(CultureInfo.InvariantCulture);
        return FormatG14(d);
    }

    internal static string FormatG14(double d)
    {
        if (double.IsNaN(d)) return d < 0 ? "-nan" : "nan";
        if (double.IsInfinity(d)) return d > 0 ? "inf" : "-inf";
        string s = d.ToString("G14", CultureInfo.InvariantCulture);
        int e = s.IndexOf('E');
        if (e < 0) return s;
        // C prints e+15 / e-05: sign always, two digits at least.
        string mant = s[..e], exp = s[(e + 1)..];
        char sign = exp[0] == '-' ? '-' : '+';
        exp = exp.TrimStart('+', '-').TrimStart('0');
        if (exp.Length < 2) exp = exp.PadLeft(2, '0');
        return mant + "e" + sign + exp;
    }

    private static ReadOnlySpan<byte> Sha1Hex(ReadOnlySpan<byte> data)
    {
        Span<byte> hash = stackalloc byte[20];
        SHA1.HashData(data, hash);
        return System.Text.Encoding.ASCII.GetBytes(Convert.ToHexStringLower(hash));
    }

    private static int Log(Lua l)
    {
        int level = (int)l.ToInteger(1);
        string text = l.ToString(2, false) ?? "";
        LuaRuntime.Current?.Run?.Log(level, text);
        return 0;
    }

    private static int AclCheck(Lua l)
    {
        int n = l.GetTop();
        if (n < 1 || l.Type(1) != LuaType.String) return Fail(l, "Please specify at least one argument for this redis lib call");
        var cmd = Commands.CommandTable.Default.Find(LuaNative.ToSpan(l.Handle, 1));
        if (cmd is null) return Fail(l, "Invalid command passed to redis.acl_check_cmd()");
        l.PushBoolean(true);
        l.PushBoolean(true);
        return 2;
    }

    /// <summary>For register_function: nil when name is a valid function name, else Redis's message.</summary>
    private static int CheckFunction(Lua l)
    {
        var name = l.ToString(1, false) ?? "";
        if (!FunctionLibraries.ValidName(name))
        {
            l.PushString("Function names can only contain letters, numbers, or underscores(_) and must be at least one character long");
            return 1;
        }
        l.PushNil();
        return 1;
    }
}

/// <summary>A bad argument to a codec: its message goes to the script as is.</summary>
internal sealed class LuaArgumentException(string message) : Exception(message);
