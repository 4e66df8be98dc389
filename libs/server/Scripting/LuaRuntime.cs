// LuaRuntime: one Lua 5.4 state set up as Redis's script environment (LuaPrelude), and running code in it.
// Invariants:
//  - One thread at a time uses a runtime (ScriptRunner serialises runs; loads and compiles happen under the same lock).
//  - Scripts run in a coroutine (one kept per runtime and reused after a run that ended well; a nested run, or a run
//    after one that ended in error or was stopped, gets a fresh one). Every such thread carries the prelude's kill hook
//    (a Lua count hook, debug.sethook): SCRIPT KILL, FUNCTION KILL, SHUTDOWN and the FUNCTION LOAD timeout stop a script
//    by a Lua error raised from it, wherever the script runs, pcall included (see LuaPrelude). Nothing here longjmps
//    through C#: the error unwinds to lua_resume.
//  - A thread that ended in error is never reset (lua_resetthread would run pending __close handlers, with hooks off
//    after a kill): it is dropped and the collector frees it without running script code.
//  - Scripts compile with the prelude's read-only environment (the registry's globals slot holds it); C# writes KEYS and
//    ARGV into the real globals behind it.
//  - Memory is capped by LuaAllocator; every C# callback runs in LuaCallbacks.Guard, which lifts the cap and turns
//    exceptions into a (false, message) result; C# reads a script's values with raw accesses only (no metamethod runs
//    from C#): nothing managed ever throws into, or is unwound by, the Lua C code.
using System.Text;
using KeraLua;

namespace Garnet.server.Scripting;

internal sealed class LuaRuntime : IDisposable
{
    public const int HookInstructions = 10_000;
    private const int RegistryIndex = -1001000;
    private const int RegistryGlobals = 2; // LUA_RIDX_GLOBALS

    private readonly Lua _lua;
    private readonly LuaAllocator _alloc;
    private readonly int _beginLoadRef, _endLoadRef, _hookThreadRef, _globalsRef;
    [ThreadStatic] private static LuaRuntime? t_current;

    /// <summary>The run this runtime serves now (redis.call goes to it); null between runs.</summary>
    public ScriptRun? Run;

    /// <summary>While a library loads: stop it after this many ms (Redis's FUNCTION LOAD timeout, 500 ms).</summary>
    private long _loadDeadline;
    private volatile string? _loadStop;

    /// <summary>Why the code running now must stop (the error it gets), or null: the run's kill or shutdown, or the
    /// FUNCTION LOAD timeout.</summary>
    internal string? StopReason => Run?.StopReason ?? _loadStop;

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
            if (_lua.PCall(1, 5, 0) != LuaStatus.OK)
                throw new InvalidOperationException("Lua prelude failed: " + _lua.ToString(-1));
            // begin_load, end_load, hook_thread, the scripts' environment, the real globals
            _globalsRef = _lua.Ref(LuaRegistry.Index);
            _lua.RawSetInteger(RegistryIndex, RegistryGlobals);
            _hookThreadRef = _lua.Ref(LuaRegistry.Index);
            _endLoadRef = _lua.Ref(LuaRegistry.Index);
            _beginLoadRef = _lua.Ref(LuaRegistry.Index);
        }
        finally { _alloc.Unbounded--; }
    }

    public Lua State => _lua;
    public LuaAllocator Allocator => _alloc;
    public long MemoryUsed => _alloc.Used;
    public long MemoryLimit { get => _alloc.Limit; set => _alloc.Limit = value; }

    /// <summary>The runtime whose code runs on this thread now; null outside a run, a compile or a load (lua_close).</summary>
    internal static LuaRuntime? Current => t_current;

    /// <summary>For the kill hook (P.poll, every HookInstructions instructions of script code): hands the network loop
    /// over once the run is long, checks the FUNCTION LOAD deadline, and says why the code must stop, if it must.</summary>
    internal string? Poll()
    {
        if (_loadDeadline != 0 && _loadStop is null && Environment.TickCount64 > _loadDeadline) _loadStop = "FUNCTION LOAD timeout";
        Run?.OnHook();
        return StopReason;
    }

    /// <summary>Makes a thread on top of the main stack (left there) and gives it the kill hook; false when Lua could not.</summary>
    private bool NewHookedThread(out Lua thread)
    {
        _alloc.Unbounded++;
        try
        {
            thread = _lua.NewThread();
            _lua.RawGetInteger(RegistryIndex, _hookThreadRef);
            _lua.PushCopy(-2);
            if (_lua.PCall(1, 0, 0) == LuaStatus.OK) return true;
            _lua.Pop(2); // the error, the thread
            return false;
        }
        finally { _alloc.Unbounded--; }
    }

    /// <summary>Compiles source as a function kept in the registry; returns its reference, or null with Lua's message.</summary>
    public int? Compile(ReadOnlySpan<byte> source, string chunkName, out string? error)
    {
        var saved = t_current;
        t_current = this;
        try
        {
            var sent = source.ToArray();
            var rewritten = TailCalls.Rewrite(sent);
            var status = _lua.LoadBuffer(rewritten, chunkName);
            if (status != LuaStatus.OK && !ReferenceEquals(rewritten, sent))
            {
                _lua.Pop(1); // the text as sent decides whether and how the script compiles
                status = _lua.LoadBuffer(sent, chunkName);
            }
            if (status != LuaStatus.OK)
            {
                error = _lua.ToString(-1) ?? "unknown error";
                _lua.Pop(1);
                return null;
            }
            error = null;
            _alloc.Unbounded++;
            try { return _lua.Ref(LuaRegistry.Index); }
            finally { _alloc.Unbounded--; }
        }
        finally { t_current = saved; }
    }

    public void Release(int reference) => _lua.Unref(LuaRegistry.Index, reference);

    /// <summary>Result of Call: the value is on top of the main stack after Ok (the caller pops it with PopResult).</summary>
    public enum Outcome { Ok, Error, Stopped }

    /// <summary>
    /// Calls the function at reference in a hooked coroutine with args pushed by pushArgs (on the coroutine). On Ok the
    /// single result is moved to the top of the main stack; on Error, message is Redis's text of the error (without
    /// "script: ..." decoration) and source/line say where in the script it happened; Stopped: message is the reason.
    /// </summary>
    public Outcome Call(int reference, Action<Lua>? pushArgs, int nargs, out string message, out string? source, out int line)
    {
        var saved = t_current;
        t_current = this;
        int top = _lua.GetTop();
        source = null;
        line = 0;
        message = "";
        // One coroutine is kept and reused after runs that ended well (lua_resetthread leaves it like new); a nested call
        // (a library loading while another run uses it) gets a fresh one, anchored on the main stack meanwhile.
        bool reuse = !_coInUse;
        Lua co;
        if (reuse && _co is not null) co = _co;
        else
        {
            if (!NewHookedThread(out co))
            {
                t_current = saved;
                message = "ERR not enough memory";
                return Outcome.Error;
            }
            if (reuse)
            {
                _alloc.Unbounded++;
                try { _coRef = _lua.Ref(LuaRegistry.Index); }
                finally { _alloc.Unbounded--; }
                _co = co;
            }
        }
        if (reuse) _coInUse = true;
        bool ok = false, keep = false;
        // C# work on the state (arguments, the result, the error) is past the cap, so that it never raises; only the
        // script's own code runs under it.
        int unbounded = _alloc.Unbounded;
        _alloc.Unbounded = unbounded + 1;
        try
        {
            co.RawGetInteger(RegistryIndex, reference);
            pushArgs?.Invoke(co);
            _alloc.Unbounded = 0;
            LuaStatus status;
            int nres;
            try { status = co.Resume(_lua, nargs, out nres); }
            finally { _alloc.Unbounded = unbounded + 1; }
            var reason = StopReason;
            if (status == LuaStatus.OK && reason is null)
            {
                if (nres == 0) co.PushNil();
                else if (nres > 1) co.Pop(nres - 1); // the first value is the reply, as Redis's one-result pcall keeps it
                co.XMove(_lua, 1);
                if (!reuse) _lua.Replace(top + 1); // the result takes the thread's slot
                ok = keep = true;
                return Outcome.Ok;
            }
            WhereInScript(co, out source, out line);
            if (reason is not null)
            {
                message = reason;
                return Outcome.Stopped;
            }
            message = status == LuaStatus.Yield ? "ERR attempt to yield from outside a coroutine" : ErrorText(co);
            return Outcome.Error;
        }
        finally
        {
            _lua.SetTop(ok ? top + 1 : top);
            if (keep)
            {
                co.ResetThread();
                co.SetTop(0);
            }
            else if (reuse)
            {
                // Ended in error, suspended, or stopped (its hook now fires on every instruction): dropped unreset.
                _lua.Unref(LuaRegistry.Index, _coRef);
                _co = null;
            }
            if (reuse) _coInUse = false;
            t_current = saved;
            _loadStop = null;
            _alloc.Unbounded = unbounded;
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
            co.PushString("err");
            co.RawGet(-2); // raw: no metamethod of the script's runs from here
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
        _alloc.Unbounded++; // C# work on the state never raises (Call runs the library's code under the cap)
        try { return LoadLibraryUnbounded(chunkRef, out error); }
        finally { _alloc.Unbounded--; }
    }

    private List<RegisteredFunction>? LoadLibraryUnbounded(int chunkRef, out string? error)
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

    /// <summary>Sets a global in the real globals, behind the read-only environment (KEYS, ARGV before an EVAL).</summary>
    public void SetGlobalArray(string name, IReadOnlyList<byte[]> values, int start, int count) =>
        SetGlobal(name, l => PushArray(l, values, start, count));

    /// <summary>Sets a global (in the real globals) to the session's arguments [start, start + count) (KEYS, ARGV).</summary>
    public void SetGlobalArray(string name, Session.RespServerSession s, int start, int count) =>
        SetGlobal(name, l => PushArgs(l, s, start, count));

    private void SetGlobal(string name, Action<Lua> pushValue)
    {
        _alloc.Unbounded++; // bounded by the request; an allocation failure here would raise through C#
        try
        {
            _lua.RawGetInteger(RegistryIndex, _globalsRef);
            _lua.PushString(name);
            pushValue(_lua);
            _lua.RawSet(-3);
            _lua.Pop(1);
        }
        finally { _alloc.Unbounded--; }
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

    /// <summary>Lets C# callbacks allocate past the cap while they run (see LuaAllocator).</summary>
    public void EnterCallback() => _alloc.Unbounded++;
    public void ExitCallback() => _alloc.Unbounded--;

    public void CollectGarbage() => _lua.GarbageCollector(LuaGC.Collect, 0);

    /// <summary>Closes the state. No script code runs then: nothing is ever marked for finalization (LuaPrelude), and a
    /// primitive called without a current runtime only returns an error (LuaCallbacks.Guard).</summary>
    public void Dispose()
    {
        var saved = t_current;
        t_current = null;
        try { _lua.Dispose(); }
        finally { t_current = saved; }
        _alloc.Dispose();
    }
}

internal sealed record RegisteredFunction(string Name, string? Description, string[] Flags, int Ref);
