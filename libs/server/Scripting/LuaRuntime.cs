// LuaRuntime: one Lua 5.4 state set up as Redis's script environment (LuaPrelude), and running code in it.
// Invariants:
//  - One thread at a time uses a runtime (ScriptRunner serialises runs; loads and compiles happen under the same lock).
//  - Scripts run in a fresh coroutine, so an instruction-count hook can stop one by yielding (SCRIPT KILL, FUNCTION LOAD
//    timeout, shutdown): a yield from a hook needs no longjmp through C#, and pcall inside the script cannot catch it.
//    After an error the coroutine's stack is still there, which is where the script line of the error is read.
//  - Memory is capped by LuaAllocator; every C# callback runs in Callback(), which lifts the cap and turns exceptions into
//    a (false, message) result: nothing managed ever throws into, or is unwound by, the Lua C code.
using System.Text;
using KeraLua;

namespace Garnet.server.Scripting;

internal sealed class LuaRuntime : IDisposable
{
    public const int HookInstructions = 10_000;
    private const int RegistryIndex = -1001000;

    private readonly Lua _lua;
    private readonly LuaAllocator _alloc;
    private readonly int _beginLoadRef, _endLoadRef;
    private static readonly LuaHookFunction s_hook = Hook;
    [ThreadStatic] private static LuaRuntime? t_current;

    /// <summary>The run this runtime serves now (redis.call goes to it); null between runs.</summary>
    public ScriptRun? Run;

    /// <summary>Set from any thread to stop the running code at its next hook (a reason: the error message).</summary>
    public volatile string? StopReason;

    /// <summary>While a library loads: stop it after this many ms (Redis's FUNCTION LOAD timeout, 500 ms).</summary>
    private long _loadDeadline;

    public LuaRuntime(long memoryLimit)
    {
        _alloc = new LuaAllocator(memoryLimit);
        _lua = new Lua(_alloc.Delegate, IntPtr.Zero) { Encoding = Encoding.UTF8 };
        _alloc.Install(_lua.Handle);
        _alloc.Unbounded++;
        try
        {
            _lua.OpenLibs();
            if (_lua.LoadBuffer(Encoding.UTF8.GetBytes(LuaPrelude.Source), LuaPrelude.ChunkName) != LuaStatus.OK)
                throw new InvalidOperationException("Lua prelude failed: " + _lua.ToString(-1));
            _lua.NewTable();
            LuaCallbacks.Register(_lua);
            if (_lua.PCall(1, 2, 0) != LuaStatus.OK)
                throw new InvalidOperationException("Lua prelude failed: " + _lua.ToString(-1));
            _endLoadRef = _lua.Ref(LuaRegistry.Index);
            _beginLoadRef = _lua.Ref(LuaRegistry.Index);
            _lua.SetHook(s_hook, LuaHookMask.Count, HookInstructions);
        }
        finally { _alloc.Unbounded--; }
    }

    public Lua State => _lua;
    public LuaAllocator Allocator => _alloc;
    public long MemoryUsed => _alloc.Used;
    public long MemoryLimit { get => _alloc.Limit; set => _alloc.Limit = value; }

    internal static LuaRuntime Current => t_current ?? throw new InvalidOperationException("no Lua runtime on this thread");

    /// <summary>Compiles source as a function kept in the registry; returns its reference, or null with Lua's message.</summary>
    public int? Compile(ReadOnlySpan<byte> source, string chunkName, out string? error)
    {
        var saved = t_current;
        t_current = this;
        try
        {
            var status = _lua.LoadBuffer(TailCalls.Rewrite(source.ToArray()), chunkName);
            if (status != LuaStatus.OK)
            {
                error = _lua.ToString(-1) ?? "unknown error";
                _lua.Pop(1);
                return null;
            }
            error = null;
            return _lua.Ref(LuaRegistry.Index);
        }
        finally { t_current = saved; }
    }

    public void Release(int reference) => _lua.Unref(LuaRegistry.Index, reference);

    /// <summary>Result of Call: the value is on top of the main stack after Ok (the caller pops it with PopResult).</summary>
    public enum Outcome { Ok, Error, Stopped }

    /// <summary>
    /// Calls the function at reference in a fresh coroutine with args pushed by pushArgs (on the coroutine). On Ok the
    /// single result is moved to the top of the main stack; on Error, message is Redis's text of the error (without
    /// "script: ..." decoration) and source/line say where in the script it happened.
    /// </summary>
    public Outcome Call(int reference, Action<Lua>? pushArgs, int nargs, out string message, out string? source, out int line)
    {
        var saved = t_current;
        t_current = this;
        int top = _lua.GetTop();
        // One coroutine is kept and reset after each run (lua_resetthread leaves it like new); a nested call (a library
        // loading while another run uses it) gets a fresh one, anchored on the main stack meanwhile.
        bool reuse = !_coInUse;
        Lua co;
        if (reuse)
        {
            if (_co is null)
            {
                _co = _lua.NewThread();
                _coRef = _lua.Ref(LuaRegistry.Index);
            }
            co = _co;
            _coInUse = true;
        }
        else co = _lua.NewThread();
        bool ok = false;
        try
        {
            co.RawGetInteger(RegistryIndex, reference);
            pushArgs?.Invoke(co);
            var status = co.Resume(_lua, nargs, out int nres);
            source = null;
            line = 0;
            message = "";
            if (status == LuaStatus.OK)
            {
                if (nres == 0) co.PushNil();
                co.XMove(_lua, 1);
                if (!reuse) _lua.Replace(top + 1); // the result takes the thread's slot
                ok = true;
                return Outcome.Ok;
            }
            WhereInScript(co, out source, out line);
            if (status == LuaStatus.Yield)
            {
                var reason = StopReason;
                message = reason ?? "ERR attempt to yield from outside a coroutine";
                if (reason is null) return Outcome.Error;
                return Outcome.Stopped;
            }
            message = ErrorText(co);
            return Outcome.Error;
        }
        finally
        {
            _lua.SetTop(ok ? top + 1 : top);
            co.ResetThread();
            co.SetTop(0);
            if (reuse) _coInUse = false;
            t_current = saved;
            StopReason = null;
        }
    }

    private Lua? _co;
    private int _coRef;
    private bool _coInUse;

    /// <summary>Redis's text of the error object on top of co: a table's err field as is, anything else "ERR " + text.</summary>
    private static string ErrorText(Lua co)
    {
        if (co.Type(-1) == LuaType.Table)
        {
            co.GetField(-1, "err");
            string? err = co.Type(-1) == LuaType.String ? co.ToString(-1, false) : null;
            co.Pop(1);
            if (err is not null) return err;
            return "ERR " + "execution failure";
        }
        if (co.Type(-1) is LuaType.String or LuaType.Number) return "ERR " + co.ToString(-1, false);
        return "ERR " + (co.Type(-1) == LuaType.Nil ? "nil" : co.TypeName(-1));
    }

    /// <summary>The innermost frame of the script itself (not a C function, not this prelude).</summary>
    private static void WhereInScript(Lua co, out string? source, out int line)
    {
        source = null;
        line = 0;
        var ar = new LuaDebug();
        for (int level = 0; level < 64 && co.GetStack(level, ref ar) == 1; level++)
        {
            co.GetInfo("Sl", ref ar);
            if (ar.What == "C" || ar.Source == LuaPrelude.ChunkName) continue;
            source = ar.Source;
            line = ar.CurrentLine;
            return;
        }
    }

    /// <summary>Runs a library's code for FUNCTION LOAD: the functions it registered, or an error.</summary>
    public List<RegisteredFunction>? LoadLibrary(int chunkRef, out string? error)
    {
        _lua.RawGetInteger(RegistryIndex, _beginLoadRef);
        _lua.PCall(0, 0, 0);
        _loadDeadline = Environment.TickCount64 + 500;
        Outcome outcome;
        string message;
        try { outcome = Call(chunkRef, null, 0, out message, out _, out _); }
        finally { _loadDeadline = 0; }
        if (outcome == Outcome.Ok) _lua.Pop(1);
        _lua.RawGetInteger(RegistryIndex, _endLoadRef);
        _lua.PCall(0, 1, 0);
        if (outcome != Outcome.Ok)
        {
            _lua.Pop(1);
            error = outcome == Outcome.Stopped ? "FUNCTION LOAD timeout" : message.StartsWith("ERR ", StringComparison.Ordinal) ? message[4..] : message;
            return null;
        }
        var list = new List<RegisteredFunction>();
        int n = (int)_lua.RawLen(-1);
        for (int i = 1; i <= n; i++)
        {
            _lua.RawGetInteger(-1, i);
            _lua.GetField(-1, "name");
            string name = _lua.ToString(-1, false);
            _lua.Pop(1);
            _lua.GetField(-1, "description");
            string? desc = _lua.Type(-1) == LuaType.String ? _lua.ToString(-1, false) : null;
            _lua.Pop(1);
            var flags = new List<string>();
            _lua.GetField(-1, "flags");
            int fn = (int)_lua.RawLen(-1);
            for (int j = 1; j <= fn; j++) { _lua.RawGetInteger(-1, j); flags.Add(_lua.ToString(-1, false)); _lua.Pop(1); }
            _lua.Pop(1);
            _lua.GetField(-1, "callback");
            int cref = _lua.Ref(LuaRegistry.Index);
            _lua.Pop(1);
            list.Add(new RegisteredFunction(name, desc, flags.ToArray(), cref));
        }
        _lua.Pop(1);
        error = null;
        return list;
    }

    /// <summary>Sets a global without the sandbox's protection (KEYS, ARGV before an EVAL).</summary>
    public void SetGlobalArray(string name, IReadOnlyList<byte[]> values, int start, int count)
    {
        _lua.PushGlobalTable();
        _lua.PushString(name);
        PushArray(_lua, values, start, count);
        _lua.RawSet(-3);
        _lua.Pop(1);
    }

    /// <summary>Sets a global to the session's arguments [start, start + count) (KEYS, ARGV before an EVAL).</summary>
    public void SetGlobalArray(string name, Session.RespServerSession s, int start, int count)
    {
        _lua.PushGlobalTable();
        _lua.PushString(name);
        PushArgs(_lua, s, start, count);
        _lua.RawSet(-3);
        _lua.Pop(1);
    }

    /// <summary>Pushes a table of the session's arguments [start, start + count).</summary>
    public static void PushArgs(Lua l, Session.RespServerSession s, int start, int count)
    {
        l.CreateTable(count, 0);
        for (int i = 0; i < count; i++)
        {
            LuaNative.Push(l.Handle, s.Arg(start + i));
            l.RawSetInteger(-2, i + 1);
        }
    }

    public static void PushArray(Lua l, IReadOnlyList<byte[]> values, int start, int count)
    {
        l.CreateTable(count, 0);
        for (int i = 0; i < count; i++)
        {
            LuaNative.Push(l.Handle, values[start + i]);
            l.RawSetInteger(-2, i + 1);
        }
    }

    private static void Hook(IntPtr state, IntPtr ar)
    {
        var rt = t_current;
        if (rt is null) return;
        if (rt._loadDeadline != 0 && rt.StopReason is null && Environment.TickCount64 > rt._loadDeadline) rt.StopReason = "FUNCTION LOAD timeout";
        rt.Run?.OnHook();
        if (rt.StopReason is null) return;
        var l = Lua.FromIntPtr(state);
        if (l.IsYieldable) l.Yield(0);
    }

    /// <summary>Lets C# callbacks allocate past the cap while they run (see LuaAllocator).</summary>
    public void EnterCallback() => _alloc.Unbounded++;
    public void ExitCallback() => _alloc.Unbounded--;

    public void CollectGarbage() => _lua.GarbageCollector(LuaGC.Collect, 0);

    public void Dispose()
    {
        _lua.Dispose();
        _alloc.Dispose();
    }
}

internal sealed record RegisteredFunction(string Name, string? Description, string[] Flags, int Ref);
