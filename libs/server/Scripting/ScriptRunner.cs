// ScriptRunner: the server's scripting state (the EVAL runtime and its script cache, the FUNCTION runtime and its
// libraries) and the one place scripts run.
// Invariants:
//  - A script runs as one unit, as EXEC does: it holds every key-lock stripe exclusively (KeyLocks.EnterAll + Hold) for
//    its whole run, so no other client sees its intermediate state, whichever keys it touches (declared in KEYS or not).
//    Inside EXEC the transaction already holds every stripe (TransactionCommands counts scripting commands as keyless
//    writes), and the script's writes join the transaction's AOF block.
//  - Its writes go to the AOF as one MULTI ... EXEC block when it ends (RespServerSession.BeginExec/EndExec), so a replay
//    after a crash applies all of them or none. A script stopped by SHUTDOWN logs nothing.
//  - Lock order: _serial (script runs outside EXEC queue there, asleep), then key stripes, then _gate (FUNCTION LOAD
//    holds every stripe as a keyless write, then compiles under _gate). A script inside EXEC skips _serial: it holds
//    every stripe already, and a run holding _serial waits for stripes only, never for _gate's holder.
//  - Handing over: a run that ends while another waits for _serial leaves every stripe taken (EnterAll's flag up, no
//    stripe entered since its scan) for that one, at most MaxHandovers times in a row; the next run then skips the scan.
//    Only a thread about to take _serial is counted (_queued), so the flag never stays up with no run to come.
//  - Other clients arriving while a script runs wait for it (BusyGate) up to busy-reply-threshold, then get -BUSY;
//    commands flagged allow-busy (SCRIPT KILL, FUNCTION KILL, SHUTDOWN, ...) go through. The wait spins briefly, then
//    holds no thread: the session leaves the request unconsumed and runs it again when GateTask completes.
using Garnet.common.Resp;
using Garnet.server.Session;
using KeraLua;

namespace Garnet.server.Scripting;

public sealed class ScriptRunner : IDisposable
{
    private readonly object _gate = new();
    private readonly object _serial = new(); // taken before the key stripes by a script run outside EXEC
    private LuaRuntime? _eval;
    private LuaRuntime? _functions;
    private volatile ScriptRun? _running;
    // Under _serial: every stripe is held (EnterAll) for the next script, handed over by the previous one.
    private bool _allHeld;
    private int _handovers;
    private int _queued; // script runs waiting for _serial
    /// <summary>Scripts in a row that may run under one EnterAll while others queue (bounds what keyed commands wait).</summary>
    internal const int MaxHandovers = 16;

    public ScriptRunner(long memoryLimit) => _memoryLimit = memoryLimit;

    /// <summary>busy-reply-threshold (lua-time-limit), ms; 0 means never BUSY.</summary>
    public volatile int BusyThresholdMs = 5000;

    private long _memoryLimit;
    /// <summary>lua-memory-limit: the cap of each Lua runtime's heap (0: none).</summary>
    public long MemoryLimit
    {
        get => Interlocked.Read(ref _memoryLimit);
        set
        {
            Interlocked.Exchange(ref _memoryLimit, value);
            lock (_gate)
            {
                if (_eval is not null) _eval.MemoryLimit = value;
                if (_functions is not null) _functions.MemoryLimit = value;
            }
        }
    }

    public ScriptCache Cache { get; } = new();
    public FunctionLibraries Libraries { get; } = new();
    public ScriptRun? Running => _running;
    /// <summary>Bytes the EVAL Lua state holds (INFO used_memory_vm_eval): fresh when no script runs, else as of the last
    /// look (a reader never waits for a running script, which holds _gate).</summary>
    public long EvalMemory { get { RefreshMemoryFigures(); return Volatile.Read(ref _evalMemory); } }
    /// <summary>Bytes the functions' Lua state holds (INFO used_memory_vm_functions), as EvalMemory.</summary>
    public long FunctionsMemory { get { RefreshMemoryFigures(); return Volatile.Read(ref _functionsMemory); } }
    private long _evalMemory, _functionsMemory;

    private void RefreshMemoryFigures()
    {
        if (!Monitor.TryEnter(_gate)) return;
        try
        {
            Volatile.Write(ref _evalMemory, _eval?.MemoryUsed ?? 0);
            Volatile.Write(ref _functionsMemory, _functions?.MemoryUsed ?? 0);
        }
        finally { Monitor.Exit(_gate); }
    }

    internal object Gate => _gate;

    internal LuaRuntime EvalRuntime => _eval ??= new LuaRuntime(MemoryLimit);
    internal LuaRuntime FunctionRuntime => _functions ??= new LuaRuntime(MemoryLimit);

    /// <summary>SCRIPT FLUSH: forgets every script and starts a fresh Lua state (as Redis does).</summary>
    public void FlushScripts()
    {
        lock (_gate)
        {
            Cache.Clear();
            _eval?.Dispose();
            _eval = null;
        }
    }

    /// <summary>FUNCTION FLUSH / RESTORE FLUSH: a fresh functions state with no library.</summary>
    internal void ResetFunctions()
    {
        Libraries.Clear();
        _functions?.Dispose();
        _functions = null;
    }

    /// <summary>
    /// Runs the function at reference (compiled in runtime) for session s as one unit and writes its reply. The call's
    /// keys and arguments are the session's arguments (args): FCALL gets them as two tables (passAsArguments), EVAL as
    /// the KEYS and ARGV globals set here.
    /// </summary>
    internal void Run(RespServerSession s, Func<LuaRuntime> runtimeOf, Func<LuaRuntime, (int Ref, ScriptRun Run)?> resolve,
        ScriptArgs args, bool passAsArguments)
    {
        var locks = s.Server.Store.Locks;
        bool inExec = s.InExec;
        Storage.KeyLocks.HeldScope held = default;
        ScriptRun? run = null;
        // A script that waits for another's end, or runs on (ScriptRun.OnHook), hands its network loop over meanwhile.
        var released = default(Garnet.common.Networking.LoopRelease.Released);
        // Scripts queue on a monitor (which spins briefly, then sleeps) rather than spinning on EnterAll's flag.
        if (!inExec)
        {
            Interlocked.Increment(ref _queued);
            if (!Monitor.TryEnter(_serial, 1))
            {
                released = Garnet.common.Networking.LoopRelease.Release();
                Monitor.Enter(_serial);
            }
            Interlocked.Decrement(ref _queued);
        }
        try
        {
        if (!inExec)
        {
            if (!_allHeld) locks.EnterAll();
            _allHeld = true;
            held = locks.Hold(null);
        }
        try
        {
            lock (_gate)
            {
                var rt = runtimeOf();
                var resolved = resolve(rt);
                if (resolved is null) return; // resolve wrote the error
                var (reference, r) = resolved.Value;
                run = r;
                run.Runtime = rt;
                if (!inExec) s.BeginExec();
                rt.Run = run;
                _running = run;
                try { Execute(s, run, rt, reference, args, passAsArguments); }
                finally
                {
                    _running = null;
                    rt.Run = null;
                    run.Finish();
                    if (!inExec) s.EndExec(discard: run.StoppedForShutdown);
                }
            }
        }
        finally
        {
            if (!inExec)
            {
                held.Dispose();
                // Handing over: with another script queued, every stripe stays taken for it (EnterAll's flag up and every
                // stripe empty), which spares it the stripe scan; after MaxHandovers in a row they are let go, so
                // commands waiting for a stripe get their turn.
                if (Volatile.Read(ref _queued) > 0 && ++_handovers < MaxHandovers) { }
                else
                {
                    _handovers = 0;
                    _allHeld = false;
                    locks.ExitAll();
                }
            }
        }
        }
        finally
        {
            if (!inExec) Monitor.Exit(_serial);
            // After every stripe and _serial are let go: the loop's holder may be waiting for one of them.
            released.Reacquire();
            run?.ReleasedLoop.Reacquire();
        }
        if (run?.Written is { } written && s.Server.Blocked.Count > 0) foreach (var (db, key) in written) s.Server.Blocked.Signal(db, key);
    }

    private static void Execute(RespServerSession s, ScriptRun run, LuaRuntime rt, int reference, ScriptArgs args, bool passAsArguments)
    {
        int argsAt = args.KeysAt + args.NumKeys, argCount = s.Argc - argsAt;
        if (!passAsArguments)
        {
            rt.SetGlobalArray("KEYS", s, args.KeysAt, args.NumKeys);
            rt.SetGlobalArray("ARGV", s, argsAt, argCount);
        }
        Action<Lua>? push = passAsArguments ? co =>
        {
            LuaRuntime.PushArgs(co, s, args.KeysAt, args.NumKeys);
            LuaRuntime.PushArgs(co, s, argsAt, argCount);
        } : null;
        var outcome = rt.Call(reference, push, passAsArguments ? 2 : 0, out string message, out string? source, out int line);
        var w = s.Writer;
        if (outcome == LuaRuntime.Outcome.Ok)
        {
            rt.EnterCallback(); // C# reads the result: allocations past the cap, never a Lua error through C#
            try { LuaToResp.Write(rt.State, w, run.Resp, s.WriteError, rt.Allocator); }
            finally { rt.State.Pop(1); rt.ExitCallback(); }
        }
        else
        {
            string text = message.Replace('\r', ' ').Replace('\n', ' ');
            if (source is not null) text += $" script: {run.Name}, on {source}:{line}.";
            s.WriteError(text);
        }
        if (rt.MemoryUsed > rt.MemoryLimit / 2) rt.CollectGarbage();
    }

    /// <summary>The code of every library (for checkpoints).</summary>
    public IReadOnlyList<byte[]> LibraryCodes()
    {
        lock (_gate) return Libraries.All.Select(l => l.Code).ToList();
    }

    /// <summary>Loads a library (a checkpoint's record at start).</summary>
    public bool LoadLibrary(byte[] code, bool replace, out string? error)
    {
        lock (_gate) return FunctionLibraries.Load(this, code, replace, out error) is not null;
    }

    /// <summary>SCRIPT KILL (isEval) / FUNCTION KILL.</summary>
    public void Kill(RespServerSession s, bool isEval)
    {
        var run = _running;
        if (run is null) { s.WriteError("NOTBUSY No scripts in execution right now."); return; }
        if (run.Wrote)
        {
            s.WriteError("UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
            return;
        }
        if (isEval && !run.IsEval) { s.WriteError(BusyFunction); return; }
        if (!isEval && run.IsEval) { s.WriteError(BusyScript); return; }
        run.StopReason = "ERR Script killed by user with " + (isEval ? "SCRIPT" : "FUNCTION") + " KILL...";
        s.Writer.WriteOk();
    }

    /// <summary>SHUTDOWN: a running script stops at its next hook and its writes are not logged.</summary>
    public void StopForShutdown()
    {
        if (_running is { } run)
        {
            run.StoppedForShutdown = true;
            run.StopReason = "ERR Script stopped: the server is shutting down";
        }
    }

    public const string BusyScript = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    public const string BusyFunction = "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

    /// <summary>What the busy gate says to a command of another client while a script runs.</summary>
    internal enum GateOutcome { Pass, Busy, WaitLater }

    /// <summary>How long a client spins at the busy gate before it waits without its thread (most scripts are short).</summary>
    internal static readonly long SpinTicks = System.Diagnostics.Stopwatch.Frequency / 20_000; // 50 µs

    /// <summary>
    /// The busy gate, for a command of session s while a script may run: Pass when none runs (or it is s's own), Busy
    /// (with Redis's text) once the running one is older than busy-reply-threshold. Otherwise, after a short spin,
    /// WaitLater with the task to await (the script's end, or its threshold) before asking again: the caller leaves the
    /// request unconsumed and its thread free. A caller that cannot wait later (canWaitLater false: AOF replay) waits here.
    /// </summary>
    internal GateOutcome BusyGate(RespServerSession s, bool canWaitLater, out Task? wait, out string? busy)
    {
        wait = null;
        busy = null;
        var run = _running;
        if (run is null || run.Session == s) return GateOutcome.Pass;
        int threshold = BusyThresholdMs;
        if (threshold > 0 && Environment.TickCount64 - run.StartMs >= threshold)
        {
            busy = run.IsEval ? BusyScript : BusyFunction;
            return GateOutcome.Busy;
        }
        long until = System.Diagnostics.Stopwatch.GetTimestamp() + SpinTicks;
        var spin = new SpinWait();
        while (System.Diagnostics.Stopwatch.GetTimestamp() < until)
        {
            spin.SpinOnce(sleep1Threshold: -1);
            run = _running;
            if (run is null || run.Session == s) return GateOutcome.Pass;
        }
        long remaining = threshold > 0 ? run.StartMs + threshold - Environment.TickCount64 : Timeout.Infinite;
        if (threshold > 0 && remaining <= 0) remaining = 0;
        var done = run.DoneTask;
        if (!canWaitLater)
        {
            if (done.Wait(TimeSpan.FromMilliseconds(remaining)) || run.Finished) return GateOutcome.Pass;
            busy = run.IsEval ? BusyScript : BusyFunction;
            return GateOutcome.Busy;
        }
        wait = threshold > 0 ? run.GateTask(remaining) : done;
        return GateOutcome.WaitLater;
    }

    public void Dispose()
    {
        lock (_gate)
        {
            _eval?.Dispose();
            _functions?.Dispose();
        }
    }
}
