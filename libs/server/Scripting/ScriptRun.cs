// ScriptRun: one running script or function: what redis.call may do from it, and its state seen by other clients
// (BUSY, SCRIPT KILL / FUNCTION KILL, SHUTDOWN NOSAVE).
// Invariants:
//  - Commands from the script are checked as Redis checks them (unknown, arity, noscript, writes from read-only scripts)
//    and run through the session like EXEC's queued commands, under the locks the script already holds.
//  - Wrote is set once a write succeeded: the script can then no longer be killed (UNKILLABLE), only the server stopped.
//  - StopReason belongs to this run (a kill that arrives as the run ends cannot stop the next one); once set, the kill
//    hook raises it and Call runs no further command.
using Garnet.server.Commands;
using Garnet.server.Session;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Scripting;

public sealed class ScriptRun
{
    internal ScriptRun(RespServerSession session, bool isEval, bool readOnly, string name)
    {
        Session = session;
        IsEval = isEval;
        ReadOnly = readOnly;
        Name = name;
        StartMs = Environment.TickCount64;
    }

    public RespServerSession Session { get; }
    public bool IsEval { get; }
    public bool ReadOnly { get; }
    public string Name { get; }
    public long StartMs { get; }
    public int Resp { get; internal set; } = 2;
    public volatile bool Wrote;
    /// <summary>Set from any thread to stop the run (SCRIPT KILL, FUNCTION KILL, SHUTDOWN): the error it ends with. The
    /// kill hook raises it at the script's next hook, and redis.call refuses to run commands from then on.</summary>
    public volatile string? StopReason;
    /// <summary>Stopped by SHUTDOWN: its effects are not logged (the AOF gets none of them).</summary>
    public volatile bool StoppedForShutdown;
    private TaskCompletionSource? _done; // made only when another client waits (the busy gate)
    private bool _finished;
    /// <summary>Keys written (for waking blocked clients); null until the first write of a keyed command.</summary>
    internal List<(int Db, byte[] Key)>? Written;

    /// <summary>True once the run has ended.</summary>
    internal bool Finished { get { lock (this) return _finished; } }

    /// <summary>Completes when the run ends (continuations run off the script's thread).</summary>
    internal Task DoneTask
    {
        get
        {
            lock (this)
            {
                if (_finished) return Task.CompletedTask;
                return (_done ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
            }
        }
    }

    private Task? _gate;

    /// <summary>For the busy gate: one task per run, shared by every waiter, that completes when the run ends or when it
    /// reaches busy-reply-threshold (remainingMs from now, as the first waiter computed it).</summary>
    internal Task GateTask(long remainingMs)
    {
        var done = DoneTask;
        if (done.IsCompleted) return done;
        lock (this) return _gate ??= Task.WhenAny(done, Task.Delay(TimeSpan.FromMilliseconds(remainingMs + 1)));
    }

    internal void Finish()
    {
        TaskCompletionSource? done;
        lock (this) { _finished = true; done = _done; }
        done?.TrySetResult();
    }
    internal LuaRuntime? Runtime;
    private bool _slowLogged;

    /// <summary>redis.call / redis.pcall: the reply bytes (RESP of the script's protocol), or error (no reply) when the
    /// command may not run from a script.</summary>
    internal byte[] Call(byte[][] args, out string? error)
    {
        error = StopReason;
        if (error is not null) return [];
        var cmd = Session.Server.Commands.Find(args[0]);
        if (cmd is not null && cmd.HasSubcommands && args.Length >= 2) cmd = cmd.FindSubcommand(args[1]);
        error = null;
        if (cmd is null) { error = "ERR Unknown Redis command called from script"; return []; }
        if (!cmd.ArityMatches(args.Length) || cmd.Handler is null) { error = "ERR Wrong number of args calling Redis command from script"; return []; }
        if ((cmd.Flags & CommandFlags.NoScript) != 0) { error = "ERR This Redis command is not allowed from script"; return []; }
        bool write = (cmd.Flags & CommandFlags.Write) != 0;
        if (write)
        {
            if (ReadOnly) { error = "ERR Write commands are not allowed from read-only scripts."; return []; }
            if (Session.WritesRefusal() is { } refusal) { error = refusal; return []; }
        }
        var reply = Session.RunFromScript(cmd, args, Resp);
        if (write && reply.Length > 0 && reply[0] != (byte)'-')
        {
            Wrote = true;
            if (cmd.HasStoreKeys)
            {
                var keys = cmd.KeysOf(args);
                for (int i = keys.First, last = keys.LastIndex(args.Length); i <= last; i += keys.Stride) (Written ??= new()).Add((Session.Database, args[i]));
            }
        }
        return reply;
    }

    internal void Log(int level, string text)
    {
        var logger = Session.Server.LoggerFactory.CreateLogger("Garnet.Script");
        var lv = level switch { 0 => LogLevel.Debug, 1 => LogLevel.Debug, 2 => LogLevel.Information, _ => LogLevel.Warning };
        logger.Log(lv, "{Text}", text);
    }

    /// <summary>A script that has run this long hands its network loop to another thread, which serves the loop's other
    /// connections (BUSY, SCRIPT KILL) while it runs on; ScriptRunner.Run takes the loop back when it ends.</summary>
    internal const int ReleaseLoopAfterMs = 1;
    internal Garnet.common.Networking.LoopRelease.Released ReleasedLoop;
    private readonly long _startTimestamp = System.Diagnostics.Stopwatch.GetTimestamp();

    /// <summary>Every LuaRuntime.HookInstructions instructions: hands the loop over once the run is long; notes a slow
    /// script once.</summary>
    internal void OnHook()
    {
        if (!ReleasedLoop.IsReleased && Garnet.common.Networking.LoopRelease.OnLoop
            && System.Diagnostics.Stopwatch.GetElapsedTime(_startTimestamp).TotalMilliseconds >= ReleaseLoopAfterMs)
            ReleasedLoop = Garnet.common.Networking.LoopRelease.Release();
        if (_slowLogged) return;
        long threshold = Session.Server.Scripts.BusyThresholdMs;
        if (threshold > 0 && Environment.TickCount64 - StartMs > threshold)
        {
            _slowLogged = true;
            Session.Server.LoggerFactory.CreateLogger("Garnet.Script").LogWarning(
                "Slow script detected: still in execution after {Ms} milliseconds. You can try killing the script using the {Cmd} KILL command. Script name is: {Name}.",
                Environment.TickCount64 - StartMs, IsEval ? "SCRIPT" : "FUNCTION", Name);
        }
    }
}
