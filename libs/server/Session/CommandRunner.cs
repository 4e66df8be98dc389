// CommandRunner: runs one parsed request of a connection through the request path's stages (Stages/RequestPath):
// resolve, admission, hold or queue, key locks, the handler, its effects, then the wake-ups after the locks. It also
// runs GET on the plain-read path, and the commands EXEC and scripts run under locks they already hold.
// Invariants:
//  - Only the connection's own thread calls it; it keeps the state of the request running (key locks, optimistic read,
//    the command timer) and reads the connection's state through its session.
//  - Order of checks is Redis's: unknown command, unknown subcommand, arity (Resolve), then the admission checks. In
//    MULTI, an admitted command is queued; otherwise its keys are locked (CommandKeyLocks; a read of one key reads
//    optimistically and is redone locked if an exclusive holder interfered) and RunHandler runs it and its effects
//    (AOF, WATCH, tracking) before the locks go. EXEC takes the locks of every queued key at once and calls RunQueued
//    for each command under them, with the queued arguments in place of the parser's.
using System.Text;
using Garnet.server.Commands;
using Garnet.server.Transactions;
using Garnet.common.Util;
using Garnet.common.Resp;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Session;

internal sealed class CommandRunner
{
    private readonly RespServerSession _s;
    private int _replyMark;      // where the running command's reply starts in Writer
    private CommandKeyLocks? _keyLocks;

    public CommandRunner(RespServerSession session) => _s = session;

    /// <summary>The request waits for CLIENT PAUSE to end (left unconsumed).</summary>
    public bool PauseHeld { get => _pauseHeld; set => _pauseHeld = value; }
    private bool _pauseHeld;

    /// <summary>The request's keys are being read from disk (left unconsumed); ReadAhead has what to start.</summary>
    public bool ReadAheadStarted { get => _readAheadStarted; set => _readAheadStarted = value; }

    /// <summary>The read-ahead of this connection (made on first use).</summary>
    public ReadAhead? ReadAhead => _readAhead;

    /// <summary>Set by the busy gate: the request waits for this, then runs again.</summary>
    public Task? TakeBusyWait()
    {
        var w = _busyWait;
        _busyWait = null;
        return w;
    }

    /// <summary>Whether the plain-read path may run the next request (IsPlain as of the last command run).</summary>
    public void UpdatePlain() => _plain = IsPlain();

    /// <summary>Times each command (and groups back-to-back fast ones): the session flushes it after a batch.</summary>
    public Metrics.CommandTimer Timer => _timer;

    /// <summary>For EXEC: the key locks it takes for every queued key.</summary>
    public CommandKeyLocks KeyLocks => _keyLocks ??= new CommandKeyLocks(_s.Server.Store.Locks);

    /// <summary>For CLIENT PAUSE WRITE: whether the MULTI queue holds a write (or may-replicate) command.</summary>
    private bool QueuedWrites() => _s.TransactionIfAny is { InMulti: true } tx
        && tx.Commands.Any(q => (q.Command.Flags & (CommandFlags.Write | CommandFlags.MayReplicate)) != 0);


    private ReadAhead? _readAhead;
    private Task? _busyWait; // set by the busy gate: await it, then run the same request again
    private bool _readAheadStarted;


    // ---- the plain-read path (docs/performance.md, "The plain-read path") ----
    // A session in its plain state (IsPlain: no MULTI, subscription, monitor, tracking, CLIENT REPLY change or output held
    // back) runs a command the table flags PlainRead (GET) with only the checks that another thread can change made per
    // command, and holds the store's epoch across a run of them: one announcement per run instead of two per read.
    // Invariants: nothing that may wait runs while the batch holds the epoch (StorageSession.HoldEpoch, whose flag is the
    // only record of it; LeaveBatchEpoch comes first: before the general path, before RunHandler takes a stripe after a
    // failed optimistic read, at the end of every batch); a plain read
    // runs only while no record is on disk (so it never waits for nor reads ahead from the disk) and when its optimistic
    // read can begin; otherwise the request takes the general path, unchanged.
    private bool _plain;             // IsPlain() as of the last command the general path ran
    private CommandDefinition? _plainCandidate; // the last PlainRead command Resolve found (its name is compared first)

    private bool IsPlain() => _s.TransactionIfAny is not { InMulti: true } && _s.Subscriptions is not { Total: > 0 } && !_s.IsMonitor
        && !_s.ReplyOff && !_s.ReplySkip && !_s.ReplySkipNext && _s.TrackingIfAny is null && !_s.HasAfterReply && !_s.ClosingAfterReply
        && _s.CanFinishLater;

    internal bool TryRunPlainRead()
    {
        if (!_plain || _plainCandidate is not { } cmd || _s.Args.Queued) return false;
        if (!cmd.NameMatches(_s.Arg(0)) || !cmd.ArityMatches(_s.Argc)) return false;
        var server = _s.Server;
        if (server.Pause.Mode != Clients.ClientPause.None || server.Scripts.Running is not null || server.Monitors.Count > 0
            || (!_s.Authenticated && _s.Settings.PasswordRequired) || _s.NotifyOn(PubSub.NotifyClass.KeyMiss)
            || _s.StorageIfAny is not { HasDiskData: false })
            return false;
        // GET's key, hashed once for its stripe and its index lookup (KeyHash: the stored key's hash derives from it).
        ulong keyHash = Garnet.storage.Util.KeyHash.HashKey(_s.Arg(1));
        if (!(_keyLocks ??= new CommandKeyLocks(server.Store.Locks)).TryReadOptimistically(Garnet.server.Storage.KeyLocks.StripeOfHash(keyHash)))
            return false;
        _s.StorageIfAny.HoldEpoch(); // once per run: a no-op while held
        if (!ReferenceEquals(_s.LastCommand, cmd.FullName)) _s.LastCommand = cmd.FullName;
        _optimisticRead = true;
        try { RunPlainGet(cmd, keyHash); }
        finally { _optimisticRead = false; }
        _readAhead?.Executed();
        return true;
    }

    /// <summary>
    /// GET on the plain-read path (the table flags only GET PlainRead): its reply is written straight from the record in
    /// memory (StorageSession.TryGetInMemory), with what RunHandler counts for it (the call and its time, a keyspace hit
    /// or miss); whatever that read declines runs through RunHandler and GET's handler, unchanged. The optimistic read
    /// is validated after the reply is written, as in RunHandler: if a writer of the key overlapped it, the reply is
    /// dropped and GET runs again holding its stripe.
    /// </summary>
    private void RunPlainGet(CommandDefinition cmd, ulong keyHash)
    {
        var server = _s.Server;
        bool mayGroup = Metrics.CommandTimer.MayGroup(server, cmd);
        long started = _timer.Start(server, mayGroup);
        int mark = _s.Writer.Length;
        var found = _s.StorageIfAny!.TryGetInMemory(_s.Arg(1), keyHash, _s.Database, _s.Writer);
        if (found == Garnet.storage.Store.InMemoryRead.NotFound && !_s.Writer.TryWriteNullInPlace()) found = Garnet.storage.Store.InMemoryRead.Declined;
        if (found == Garnet.storage.Store.InMemoryRead.Declined)
        {
            RunHandler(cmd);
            return;
        }
        _optimisticRead = false;
        if (!_keyLocks!.EndOptimisticRead())
        {
            _s.Writer.Truncate(mark);
            _s.LeaveBatchEpoch(); // the stripe may make it wait
            _keyLocks.Acquire(cmd, _s, orderWrites: false);
            try { RunHandler(cmd); }
            finally { _keyLocks.Release(); }
            return;
        }
        _s.Counters.Commands++;
        if (found == Garnet.storage.Store.InMemoryRead.Found) _s.Counters.KeyspaceHits++;
        else _s.Counters.KeyspaceMisses++;
        long ticks = _timer.Ended(server, cmd, started, failed: false, mayGroup, small: true);
        if (ticks >= 0) Metrics.CommandObserver.Ran(_s, cmd, ticks, failed: false);
    }


    private static long s_lastSecurityWarningMs = -1_000_000; // far enough back that the first warning is logged

    internal void Execute()
    {
        bool muted = _s.ReplyOff || _s.ReplySkip;
        _replyMark = -1;
        ExecuteCore();
        if (_pauseHeld || _readAheadStarted) return; // it runs again later
        if (muted && (_s.ReplyOff || _s.ReplySkip) && _replyMark >= 0)
        {
            // CLIENT REPLY OFF / SKIP: the reply is dropped (CLIENT REPLY ON clears the flags first, so its +OK goes out).
            if (_s.Deferred.Pending) _s.DeferredMuted = true;
            else if (_s.Writer.Length > _replyMark) _s.Writer.Truncate(_replyMark);
        }
        if (_s.ReplySkip) _s.ReplySkip = false;
        if (_s.ReplySkipNext) { _s.ReplySkip = true; _s.ReplySkipNext = false; }
    }

    private void ExecuteCore()
    {
        // Messages pushed to this subscriber before this command go out before its reply, as in Redis's output buffer
        // (up to a flush's worth: a larger backlog goes out after the batch, so replies never carry it into the
        // normal class's output limit).
        if (_s.Subscriptions is { Total: > 0 } && _s.Connection.PendingPushBytes is > 0 and <= RespServerSession.FlushThreshold) _s.Connection.DrainPushes(_s.Writer);
        _replyMark = _s.Writer.Length;
        var cmd = Resolve();
        if (cmd is null || !Admit(cmd))
        {
            if (cmd is not null) _s.Server.CommandStats.Rejected(cmd.Id);
            _s.TransactionIfAny?.FlagQueueingError(); // as Redis: a command refused while queueing fails the EXEC
            return;
        }
        // CLIENT PAUSE: held before it is queued or run, as Redis's processCommand (monitors, Redis's replicas, never are).
        if (_s.Server.Pause.Mode != Clients.ClientPause.None && !_s.IsMonitor && _s.CanFinishLater && _s.Server.Pause.Holds(cmd, QueuedWrites))
        {
            _pauseHeld = true;
            return;
        }
        if (_s.TransactionIfAny is { InMulti: true } && !cmd.RunsInMulti)
        {
            TransactionCommands.Queue(_s.Context, cmd);
            return;
        }
        // While another client's script runs, wait for it (up to busy-reply-threshold), then answer BUSY
        // (Scripting/ScriptRunner.BusyGate). The wait leaves the request unconsumed and this thread free (ProcessRequests).
        if (_s.Server.Scripts.Running is not null && (cmd.Flags & CommandFlags.AllowBusy) == 0)
        {
            switch (_s.Server.Scripts.BusyGate(_s, _s.CanFinishLater, out var wait, out string? busy))
            {
                case Scripting.ScriptRunner.GateOutcome.Busy:
                    _s.Server.CommandStats.Rejected(cmd.Id);
                    _s.WriteError(busy!);
                    return;
                case Scripting.ScriptRunner.GateOutcome.WaitLater:
                    _busyWait = wait;
                    return;
            }
        }
        if (!(_readAhead ??= new ReadAhead(_s)).Ready(cmd, _s.Args.RequestsBehind))
        {
            _readAheadStarted = true;
            return;
        }
        bool feed = _s.Server.Monitors.Count > 0 && Clients.MonitorFeed.Shows(cmd);
        if (feed && Clients.MonitorFeed.IsScriptCall(cmd)) { _s.Server.Monitors.Feed(_s, fromScript: false); feed = false; }
        // A stream command finds the spilled blocks its read-ahead loaded; any other read of the spill file is counted.
        var spillScope = Objects.Streams.StreamSpillFile.EnterRequest(_readAhead.PinnedBlocks);
        try { RunLocked(cmd); }
        finally { spillScope.Exit(); }
        if (feed) _s.Server.Monitors.Feed(_s, fromScript: false);
        // CLIENT CACHING applies to the next command (or transaction) only, as in Redis.
        if (_s.TrackingIfAny is { CachingGiven: true } && _s.TransactionIfAny is not { InMulti: true } && !(cmd.Parent ?? cmd).KeepsTrackingCaching) _s.TrackingIfAny.CachingGiven = false;
        if (_s.HasAfterReply) _s.WriteAfterReply();
    }


    /// <summary>The command named by the request (its subcommand where it has them), with the right number of arguments;
    /// null after writing Redis's error.</summary>
    private CommandDefinition? Resolve()
    {
        var name = _s.Arg(0);
        var cmd = _s.Server.Commands.Find(name);
        if (cmd is null)
        {
            if (Ascii.EqualsIgnoreCase(name, "POST"u8) || Ascii.EqualsIgnoreCase(name, "HOST:"u8))
            {
                long now = Environment.TickCount64, last = Interlocked.Read(ref s_lastSecurityWarningMs);
                if (now - last > 60_000 && Interlocked.CompareExchange(ref s_lastSecurityWarningMs, now, last) == last)
                    _s.Server.LoggerFactory.CreateLogger("Garnet.Session").LogWarning(
                        "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. Connection aborted.");
                _s.CloseAfterReply();
                return null;
            }
            WriteUnknownCommand();
            return null;
        }
        if (cmd.HasSubcommands && _s.Argc >= 2)
        {
            var sub = cmd.FindSubcommand(_s.Arg(1));
            if (sub is null)
            {
                _s.WriteError($"ERR unknown subcommand '{Truncate(_s.ArgString(1), 128)}'. Try {cmd.Name.ToUpperInvariant()} HELP.");
                return null;
            }
            cmd = sub;
        }
        _s.LastCommand = cmd.FullName;
        if (cmd.PlainRead) _plainCandidate = cmd;
        if (!cmd.ArityMatches(_s.Argc) || cmd.Handler is null)
        {
            _s.Server.CommandStats.Rejected(cmd.Id);
            _s.WriteError($"ERR wrong number of arguments for '{cmd.FullName}' command");
            return null;
        }
        return cmd;
    }

    /// <summary>Whether this client may run cmd now (Stages/RequestPath.Admission); false after writing why not.</summary>
    private bool Admit(CommandDefinition cmd)
    {
        foreach (var check in Stages.RequestPath.Admission)
            if (!check.Admit(_s, cmd)) return false;
        return true;
    }

    /// <summary>Runs cmd with its keys locked (a keyless write locks every key), then wakes clients blocked on its keys.</summary>
    private void RunLocked(CommandDefinition cmd)
    {
        bool locked = false, lockedAll = false;
        try
        {
            // A read of one key runs without taking its stripe when no exclusive holder interferes (checked after it ran,
            // in RunHandler); a "keymiss" event could not be taken back, so with those on it takes the stripe.
            if (cmd.HasStoreKeys && !_s.NotifyOn(PubSub.NotifyClass.KeyMiss)
                && (_keyLocks ??= new CommandKeyLocks(_s.Server.Store.Locks)).TryReadOptimistically(cmd, _s))
                _optimisticRead = true;
            else if (cmd.HasStoreKeys) locked = (_keyLocks ??= new CommandKeyLocks(_s.Server.Store.Locks)).Acquire(cmd, _s, orderWrites: _s.Server.Aof is not null);
            else if ((cmd.Flags & CommandFlags.Write) != 0)
            {
                // A write without keys (FLUSHDB, FLUSHALL, SWAPDB) changes every key: it runs, and is logged, alone.
                _s.Server.Store.Locks.EnterAll();
                lockedAll = true;
            }
            RunHandler(cmd);
        }
        finally
        {
            _optimisticRead = false;
            if (locked) _keyLocks!.Release();
            if (lockedAll) _s.Server.Store.Locks.ExitAll();
        }
        // Clients blocked on a key this write touched try again (the first in line for each key).
        if ((cmd.Flags & CommandFlags.Write) != 0 && _s.Server.Blocked.Count > 0 && cmd.HasStoreKeys) SignalBlocked(cmd);
    }

    private bool _optimisticRead;   // RunLocked began an optimistic read of the command's key (CommandKeyLocks)

    /// <summary>The running command reads its key optimistically: RunHandler checks afterwards that no writer of the key
    /// (exclusive or single-key) ran meanwhile, and runs it again under the key's stripe if one did.</summary>
    internal bool ReadIsValidatedAfter => _optimisticRead;

    /// <summary>
    /// Runs cmd's handler with its locks held by the caller. A write that succeeded is logged to the AOF (or to the
    /// running transaction's batch) and breaks the WATCHes of its keys, before the caller releases the locks.
    /// </summary>
    internal void RunHandler(CommandDefinition cmd)
    {
        _s.Counters.Commands++;
        _s.StorageIfAny?.BeginCommand();
        // A script's command replies to the script, not to the client: no client-output-buffer-limit (Redis's script
        // client has none; the script's reply to the client has it, and lua-memory-limit bounds what the script takes).
        _s.Writer.Limit = _scriptCall ? 0 : _s.Settings.Limits.OutputBufferHardLimit;
        int mark = _s.Writer.Length;
        long errorsBefore = _s.Counters.Errors;
        // Within a batch a command starts when the one before it ended (its parsing and dispatch count as its own time);
        // back-to-back fast commands share clock readings (Metrics/CommandTimer).
        bool mayGroup = Metrics.CommandTimer.MayGroup(_s.Server, cmd);
        long started = _timer.Start(_s.Server, mayGroup);
        try
        {
            _s.Propagation.Begin();
            long hitsBefore = _s.Counters.KeyspaceHits, missesBefore = _s.Counters.KeyspaceMisses;
            FaultPoints.Hit("command"); // test seam: a handler's failure
            cmd.Handler!(_s.Context);
            if (_optimisticRead)
            {
                _optimisticRead = false;
                // A read that finishes later (from disk) reads its record again then; otherwise an exclusive holder's
                // work overlapped the read: its reply and counts are undone and it runs again holding the stripe.
                if (!_keyLocks!.EndOptimisticRead() && !_s.Deferred.Pending)
                {
                    _s.Writer.Truncate(mark);
                    _s.Counters.Errors = errorsBefore;
                    _s.Counters.KeyspaceHits = hitsBefore;
                    _s.Counters.KeyspaceMisses = missesBefore;
                    _s.LeaveBatchEpoch(); // the stripe may make it wait
                    _keyLocks.Acquire(cmd, _s, orderWrites: false);
                    try { cmd.Handler!(_s.Context); }
                    finally { _keyLocks.Release(); }
                }
            }
            if (_s.Counters.Errors == errorsBefore)
            {
                if ((cmd.Flags & CommandFlags.Write) != 0) _s.Counters.Writes++;
                foreach (var effect in Stages.RequestPath.Effects) effect.After(_s, cmd);
            }
        }
        catch (ReplyLimitException ex)
        {
            // As Redis's client-output-buffer-limit: the client is dropped; the reply never took more than the limit.
            _s.Writer.Truncate(mark);
            _s.CloseAfterReply();
            _s.Server.LoggerFactory.CreateLogger("Garnet.Session").LogWarning("Client {_s.Id} closed while running {Command}: {Reason}", _s.Id, cmd.FullName, ex.Message);
        }
        catch (Garnet.storage.Log.LogDeviceException)
        {
            // The device's failure is logged once by the store; the client is told as Redis tells it about a failing disk.
            _s.Writer.Truncate(mark);
            _s.WriteError("MISCONF Errors writing to the log device (disk full or failing): writes are refused until it can be written again; see the server log");
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // A bug in one command must not take the connection down: drop its partial reply, answer with an error.
            _s.Writer.Truncate(mark);
            _s.WriteError("ERR internal error while running '" + cmd.FullName + "'" + InternalErrors.Detail(ex));
            _s.Server.LoggerFactory.CreateLogger("Garnet.Session").LogError(ex, "Command {Command} failed", cmd.FullName);
        }
        bool failed = _s.Counters.Errors != errorsBefore;
        bool small = !_s.Deferred.Pending && !_s.ClosingAfterReply && _s.Writer.Length - mark < Metrics.CommandTimer.SmallReply;
        long ticks = _timer.Ended(_s.Server, cmd, started, failed, mayGroup, small);
        if (ticks >= 0) Metrics.CommandObserver.Ran(_s, cmd, ticks, failed);
    }

    private readonly Metrics.CommandTimer _timer = new();


    /// <summary>For EXEC: runs one queued command (its locks are held by EXEC) with its own arguments in place of the request's.</summary>
    internal void RunQueued(CommandDefinition cmd, byte[][] args, bool fromScript = false)
    {
        var saved = _s.Args.BeginQueued(args);
        try
        {
            _s.LastCommand = cmd.FullName;
            bool feed = _s.Server.Monitors.Count > 0 && Clients.MonitorFeed.Shows(cmd);
            if (feed && Clients.MonitorFeed.IsScriptCall(cmd)) { _s.Server.Monitors.Feed(_s, fromScript); feed = false; }
            RunHandler(cmd);
            if (feed) _s.Server.Monitors.Feed(_s, fromScript);
            _s.Deferred.FinishBlocking(); // inside EXEC the reply takes its place in the array
        }
        finally { _s.Args.EndQueued(saved); }
    }


    /// <summary>For a script's redis.call: runs cmd with args under the locks the script holds, as EXEC runs a queued
    /// command, with replies in the script's protocol; returns the reply's bytes (removed from the client's output).</summary>
    private bool _scriptCall; // RunFromScript runs a command now

    internal byte[] RunFromScript(CommandDefinition cmd, byte[][] args, int resp)
    {
        int mark = _s.Writer.Length;
        int protocol = _s.Writer.Protocol;
        bool references = _s.Writer.AllowReferences;
        long limit = _s.Writer.Limit;
        string last = _s.LastCommand;
        _s.Writer.Protocol = resp;
        _s.Writer.AllowReferences = false; // the reply is read back from the buffer below
        _scriptCall = true;
        try { RunQueued(cmd, args, fromScript: true); }
        catch
        {
            _s.Writer.Truncate(mark); // a reply that failed part way (a deferred read's) never reaches the client
            throw;
        }
        finally
        {
            _scriptCall = false;
            _s.Writer.Protocol = protocol;
            _s.Writer.AllowReferences = references;
            _s.Writer.Limit = limit;
            _s.LastCommand = last;
        }
        var reply = _s.Writer.WrittenSpan[mark..].ToArray();
        _s.Writer.Truncate(mark);
        return reply;
    }


    private void SignalBlocked(CommandDefinition cmd)
    {
        var keys = cmd.KeysOf(_s.Context);
        for (int i = keys.First, last = keys.LastIndex(_s.Argc); i <= last; i += keys.Stride) _s.Server.Blocked.Signal(_s.Database, _s.Arg(i));
    }


    private void WriteUnknownCommand()
    {
        var args = new StringBuilder();
        for (int i = 1; i < _s.Argc && args.Length < 128; i++)
            args.Append('\'').Append(Truncate(_s.ArgString(i), 128 - args.Length)).Append("' ");
        _s.WriteError($"ERR unknown command '{Truncate(_s.ArgString(0), 128)}', with args beginning with: {args}");
    }

    private static string Truncate(string s, int max) => s.Length <= max ? s : s[..max];

}
