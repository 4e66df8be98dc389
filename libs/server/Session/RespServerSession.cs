// RespServerSession: one client connection: its state (name, user, database, reply modes, counters), the objects of
// its features (MULTI, subscriptions, tracking, the deferred reply, the running command's arguments), and the loop
// that parses its requests and hands each to its CommandRunner (the request path's stages).
// Invariants:
//  - Only the connection's own thread calls Process and the handlers; other threads read the public properties
//    (CLIENT LIST, INFO) racily, which is fine for figures, and call Kill().
//  - A request that must wait (CLIENT PAUSE, a busy script, keys being read from disk) stays unconsumed in the input
//    and runs again once the wait ends; a deferred reply is written before the next request of this client runs.
using System.Text;
using Garnet.common.Networking;
using Garnet.common.Resp;
using Garnet.server.Commands;
using Garnet.server.Persistence;
using Garnet.server.Transactions;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Session;

public sealed class RespServerSession : IRequestHandler
{
    /// <summary>Replies beyond this size are sent before more requests run.</summary>
    public const int FlushThreshold = 64 * 1024;

    private readonly RespRequestParser _parser;
    private readonly ISessionChannel _connection;
    private bool _closeAfterReply;
    private volatile bool _killed;

    public RespServerSession(RespServer server, ISessionChannel connection)
    {
        Server = server;
        _connection = connection;
        _parser = new RespRequestParser(server.Settings.Limits);
        Args = new CommandArguments(_parser);
        Id = server.Clients.NextId();
        CreatedMs = Environment.TickCount64;
        Authenticated = !server.Settings.PasswordRequired;
        // A connection sends its replies segment by segment, so a large value is sent from where it is stored (GET).
        Writer.AllowReferences = connection is not DetachedChannel;
        Context = new CommandContext(this);
        Deferred = new DeferredReply(this);
        Runner = new CommandRunner(this);
        Aof = new AofWrites(this);
        Events = new KeyEvents(this);
    }

    /// <summary>Runs this connection's requests through the request path.</summary>
    internal CommandRunner Runner { get; }

    /// <summary>What this connection's command handlers see (one, reused for every command).</summary>
    public CommandContext Context { get; }

    public RespServer Server { get; }
    public ServerSettings Settings => Server.Settings;
    public RespWriter Writer { get; } = new();
    public RespWriter Output => Writer;
    public long MinBytesHint => _parser.MinBytesHint;
    public ISessionChannel Connection => _connection;

    // ---- client state (CLIENT LIST fields) ----
    public long Id { get; }
    public string? Name { get; set; }
    public string? LibName { get; set; }
    public string? LibVersion { get; set; }
    public int Database { get; set; }
    public string User { get; set; } = "default";
    public long CreatedMs { get; }
    /// <summary>Last time bytes were received from or sent to this client (Environment.TickCount64).</summary>
    public long LastInteractionMs => _connection.LastActivityMs;
    public string LastCommand { get; internal set; } = "NULL";
    public int Protocol { get => Writer.Protocol; set => Writer.Protocol = value; }

    private bool _authenticated;
    public bool Authenticated
    {
        get => _authenticated;
        set { _authenticated = value; _parser.Authenticated = value; }
    }
    /// <summary>Failed AUTH / HELLO AUTH on this connection (bounded by auth-max-failures: Commands/AuthFailureBound).</summary>
    public int AuthFailures { get; set; }

    // ---- admin state (CLIENT REPLY / NO-EVICT / NO-TOUCH, MONITOR: Commands/AdminClientCommands) ----
    /// <summary>In MONITOR mode (Clients/MonitorFeed): it is sent every command run, and may not touch the keyspace.</summary>
    public bool IsMonitor { get; internal set; }
    /// <summary>CLIENT NO-EVICT ON: recorded and listed (flag e); this server never evicts clients.</summary>
    public bool NoEvict { get; internal set; }
    private bool _noTouch;
    /// <summary>CLIENT NO-TOUCH ON: reads leave the keys' last access (OBJECT IDLETIME) as it was; TOUCH still touches.</summary>
    public bool NoTouch
    {
        get => _noTouch;
        internal set { _noTouch = value; Storage.NoTouch = value; }
    }
    // Redis's CLIENT_REPLY_OFF, CLIENT_REPLY_SKIP (this command's reply is dropped) and CLIENT_REPLY_SKIP_NEXT.
    internal bool ReplyOff, ReplySkip, ReplySkipNext;
    private bool _deferredMuted; // the deferred reply pending belongs to a muted command

    /// <summary>The deferred reply pending belongs to a command whose reply is dropped (CLIENT REPLY OFF / SKIP).</summary>
    internal bool DeferredMuted { get => _deferredMuted; set => _deferredMuted = value; }

    // ---- counters, summed by ServerStatistics ----
    /// <summary>This client's figures.</summary>
    public ClientCounters Counters { get; } = new();
    public long CommandsProcessed => Volatile.Read(ref Counters.Commands);
    /// <summary>Write commands of this client that succeeded (no error reply).</summary>
    public long WritesApplied => Volatile.Read(ref Counters.Writes);
    public long ErrorReplies => Volatile.Read(ref Counters.Errors);
    public long NetInputBytes => _connection.BytesIn;
    public long NetOutputBytes => _connection.BytesOut;
    public long KeyspaceHits => Volatile.Read(ref Counters.KeyspaceHits);
    public long KeyspaceMisses => Volatile.Read(ref Counters.KeyspaceMisses);

    /// <summary>A read of a key's value (Redis's lookupKeyRead: GET, EXISTS, TTL, ...): INFO's keyspace_hits / misses.</summary>
    public void CountKeyLookup(bool hit)
    {
        if (hit) Counters.KeyspaceHits++;
        else Counters.KeyspaceMisses++;
    }

    /// <summary>The same, for a lookup of key that Redis announces when it misses ("keymiss", class m).</summary>
    public void CountKeyLookup(bool hit, ReadOnlySpan<byte> key)
    {
        if (hit) Counters.KeyspaceHits++;
        else
        {
            Counters.KeyspaceMisses++;
            Notify(PubSub.NotifyClass.KeyMiss, "keymiss"u8, key);
        }
    }

    // ---- arguments of the running command (CommandArguments) ----
    internal CommandArguments Args { get; }

    /// <summary>Number of arguments including the command name.</summary>
    public int Argc => Args.Count;

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    public ReadOnlySpan<byte> Arg(int index) => Args[index];

    public string ArgString(int index) => Encoding.UTF8.GetString(Args[index]);

    /// <summary>See CommandArguments.TakeLarge.</summary>
    internal Storage.LargeValue? TakeLargeArgument(int index) => Args.TakeLarge(index, fromConnection: !InExec && _connection is not DetachedChannel);

    private Storage.StorageSession? _storage;

    /// <summary>The storage session, or null before the first command that used the store.</summary>
    internal Storage.StorageSession? StorageIfAny => _storage;

    /// <summary>What the running write propagates (the handler states it through its CommandContext).</summary>
    internal Propagation Propagation { get; } = new();

    /// <summary>This connection's AOF records: what its replies wait for, and the batch of a running EXEC or script.</summary>
    internal AofWrites Aof { get; }

    /// <summary>Before replies go out: a deferred command's work is awaited and its reply written; with --aof-fsync always,
    /// replies wait until the writes they acknowledge are durable.</summary>
    public ValueTask BeforeSendAsync() => Deferred.Pending ? Deferred.FinishAsync() : Aof.WaitDurableAsync();

    /// <summary>The command whose reply comes later, if any.</summary>
    internal DeferredReply Deferred { get; }

    private bool HasDeferred => Deferred.Pending;

    /// <summary>See DeferredReply.WhenReadsDone.</summary>
    public void ReplyWhenReadsDone(Action<CommandContext, Exception?> reply) => Deferred.WhenReadsDone(reply);

    /// <summary>See DeferredReply.WhenDone: no later command of this client runs before the reply, and the thread that
    /// served this connection is free meanwhile.</summary>
    public void ReplyWhenDone(Task work, Action<CommandContext, Task> reply) => Deferred.WhenDone(work, reply);

    /// <summary>Writes a deferred command's reply (reply(context, state)), as RunHandler would have.</summary>
    internal void WriteLaterReply<TState>(Action<CommandContext, TState> reply, TState state)
    {
        int mark = Writer.Length;
        try { reply(Context, state); }
        catch (Exception ex)
        {
            Writer.Truncate(mark);
            WriteError("ERR internal error while running '" + LastCommand + "'" + InternalErrors.Detail(ex));
            Server.LoggerFactory.CreateLogger("Garnet.Session").LogError(ex, "Command {Command} failed", LastCommand);
        }
        if (_deferredMuted)
        {
            _deferredMuted = false;
            Writer.Truncate(mark);
        }
        // What the deferred work published (a served BLPOP's keyspace events): this session's copy after the reply, the
        // other subscribers' now.
        if (_pushes.ForSelf) WriteAfterReply();
        if (_pushes.ForOthers) _pushes.SendOthers();
    }

    /// <summary>True when a command may leave its reply to ReplyWhenDone: on a connection's loop, outside EXEC.</summary>
    public bool CanFinishLater => !InExec && _connection.CanFinishLater;

    /// <summary>This connection's access to the store, in its selected database.</summary>
    public Storage.StorageSession Storage
    {
        get
        {
            var st = _storage ??= new Storage.StorageSession(Server.Store, Writer) { Events = Events };
            st.Database = Database;
            return st;
        }
    }

    public bool ArgEquals(int index, ReadOnlySpan<byte> upperAscii) => Ascii.EqualsIgnoreCase(Arg(index), upperAscii);

    /// <summary>Writes an error reply (text starts with its code, e.g. "ERR ...") and counts it.</summary>
    public void WriteError(string message)
    {
        Counters.Errors++;
        Server.Stats.Errors.Count(message);
        Writer.WriteError(message);
    }

    /// <summary>Send the replies written so far, then close the connection.</summary>
    public void CloseAfterReply() => _closeAfterReply = true;

    /// <summary>CloseAfterReply was called.</summary>
    internal bool ClosingAfterReply => _closeAfterReply;

    /// <summary>True once Kill was called: the client is on its way out and no longer listed.</summary>
    public bool IsKilled => _killed || _connection.IsClosed;

    /// <summary>Closes the connection from any thread (CLIENT KILL, timeout, shutdown). Graceful lets a running batch finish.</summary>
    public void Kill(bool graceful = false)
    {
        _killed = true;
        _connection.Close(force: !graceful);
    }

    public ProcessResult Process(InputBuffer input)
    {
        ProcessResult result;
        try
        {
            FaultPoints.Hit("session"); // test seam: a failure of the session itself closes this connection only
            result = ProcessRequests(input);
        }
        finally { LeaveBatchEpoch(); }
        Runner.Timer.Flush(Server);
        // Messages this batch published went into their subscribers' push buffers: one send per subscriber now.
        if (_pushes.ForOthers) _pushes.SendOthers();
        return result;
    }

    private ProcessResult ProcessRequests(InputBuffer input)
    {
        // A deferred reply not awaited by the caller (AOF replay): wait for it here.
        Deferred.FinishWorkBlocking();
        if (Deferred.WaitsForReads && !Deferred.TryFinishReadsNow()) return ProcessResult.FlushAndContinue;
        Runner.Timer.BeginBatch(Server);
        while (true)
        {
            if (_killed || _closeAfterReply) return ProcessResult.Close;
            if (Writer.TotalLength >= FlushThreshold) return ProcessResult.FlushAndContinue;
            // The tighter unauthenticated limits apply only while a password is required (it can change at run time).
            _parser.Authenticated = _authenticated || !Settings.PasswordRequired;
            var status = _parser.TryParse(input.Unconsumed, out int consumed);
            switch (status)
            {
                case ParseStatus.Incomplete:
                    // Every request read ahead has run: give back the records ReadAhead kept for them.
                    if (Runner.ReadAhead is not null) _storage?.ReadAheadIdle();
                    return ProcessResult.NeedMoreData;
                case ParseStatus.Empty:
                    input.Start += consumed;
                    continue;
                case ParseStatus.ProtocolError:
                    WriteError("ERR " + _parser.Error);
                    Server.LoggerFactory.CreateLogger("Garnet.Session").LogDebug("Protocol error from client {Id}: {Error}", Id, _parser.Error);
                    return ProcessResult.Close;
            }
            Args.Parsed(input, consumed);
            if (Runner.TryRunPlainRead())
            {
                input.Start += consumed;
                if (HasDeferred) return ProcessResult.FlushAndContinue;
                continue;
            }
            LeaveBatchEpoch();
            Runner.Execute();
            Runner.UpdatePlain();
            if (Runner.PauseHeld)
            {
                // CLIENT PAUSE holds it: the request stays unconsumed and runs (or is held again) once the pause ends.
                Runner.PauseHeld = false;
                _parser.Reset();
                ReplyWhenDone(Server.Pause.WhenReleased(), static (_, _) => { });
                return ProcessResult.FlushAndContinue;
            }
            if (Runner.ReadAheadStarted)
            {
                // Its keys are being read from disk: the request stays unconsumed and runs once the reads are done.
                Runner.ReadAheadStarted = false;
                if (Runner.ReadAhead!.Start(_parser, input.Data, input.Start + consumed, input.End) is { } blocks) ReplyWhenDone(blocks, static (_, _) => { });
                else ReplyWhenReadsDone(static (_, _) => { }); // a failed read shows when the request runs again
                return ProcessResult.FlushAndContinue;
            }
            if (Runner.TakeBusyWait() is { } busyWait)
            {
                // Another client's script runs: this request stays unconsumed and runs again once it ends (or BUSY).
                _parser.Reset();
                ReplyWhenDone(busyWait, static (_, _) => { });
                return ProcessResult.FlushAndContinue;
            }
            Runner.ReadAhead?.Executed();
            if (Args.InputTaken) Args.InputTaken = false; // the handler kept the buffer (TakeLargeArgument): input is a new, empty one
            else input.Start += consumed;
            if (_closeAfterReply) return ProcessResult.Close;
            // A deferred command: send what is written, await its work (BeforeSendAsync), then go on with the next request.
            if (HasDeferred) return ProcessResult.FlushAndContinue;
        }
    }

    /// <summary>A monitor sees its own commands after their replies.</summary>
    internal void WriteMonitorLineToSelf(byte[] line) => _pushes.AfterReply(line);

    /// <summary>For ReadAhead's look at later requests: the parser's arguments now lie at offset of the input.</summary>
    internal void ParsedAt(int offset) => Args.ParsedAt(offset);

    /// <summary>Gives up the epoch the batch's plain reads held (before anything that may wait).</summary>
    internal void LeaveBatchEpoch()
    {
        _storage?.LeaveHeldEpoch(); // a no-op when not held
    }

    // ---- pub/sub (PubSub/PubSubCommands, PubSubRegistry) ----
    private PubSub.PubSubClient? _pubsub;
    private readonly PendingPushes _pushes = new();

    /// <summary>This client's subscriptions (made on first use).</summary>
    internal PubSub.PubSubClient PubSubState => _pubsub ??= new PubSub.PubSubClient(this);

    /// <summary>This client's subscriptions, or null when it never subscribed (read by CLIENT LIST from any thread).</summary>
    public PubSub.PubSubClient? Subscriptions => _pubsub;

    /// <summary>Redis's CLIENT_PUBSUB flag: the client has a subscription (in RESP2 it may then run only the pub/sub
    /// commands, PING, QUIT and RESET).</summary>
    public bool IsSubscribed => _pubsub is { Total: > 0 };

    /// <summary>A message this session published to itself: written after the running command's reply (Redis 7.2's
    /// pending push messages), so it never lands inside that reply (an EXEC array, say).</summary>
    internal void PushAfterReply(ReadOnlySpan<byte> message) => _pushes.AfterReply(message.ToArray());

    // ---- keyspace notifications, WATCH and tracking (KeyEvents) ----
    internal KeyEvents Events { get; }

    /// <summary>Redis's notifyKeyspaceEvent: see KeyEvents.Notify.</summary>
    public void Notify(PubSub.NotifyClass cls, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db = -1) => Events.Notify(cls, evt, key, db);

    public bool NotifyOn(PubSub.NotifyClass cls) => Events.On(cls);

    /// <summary>key of db was changed by this client (called under the key's lock).</summary>
    public void KeyChanged(int db, ReadOnlySpan<byte> key) => Events.KeyChanged(db, key);

    /// <summary>A message for another client was queued on target without being sent: it goes when this batch is done.</summary>
    internal void PushedTo(ISessionChannel target) => _pushes.QueuedOn(target);

    /// <summary>Messages for this client published while its command ran are waiting to follow its reply.</summary>
    internal bool HasAfterReply => _pushes.ForSelf;

    internal void WriteAfterReply() => _pushes.WriteSelf(Writer);

    // ---- client-side caching (CLIENT TRACKING: Tracking/) ----
    private Tracking.TrackingState? _tracking;

    /// <summary>This client's tracking settings (made on first use).</summary>
    public Tracking.TrackingState Tracking => _tracking ??= new Tracking.TrackingState();

    /// <summary>The tracking settings, or null when this client never used CLIENT TRACKING.</summary>
    public Tracking.TrackingState? TrackingIfAny => _tracking;

    /// <summary>True when this client is in Pub/Sub mode (subscribed to a channel or pattern): a RESP2 invalidation
    /// redirected to it goes out as a message on __redis__:invalidate.</summary>
    public bool IsSubscriber => IsSubscribed;

    // ---- transactions (MULTI/EXEC/WATCH: Transactions/TransactionCommands) ----
    private Transactions.TransactionState? _transaction;

    /// <summary>This client's MULTI/WATCH state (made on first use).</summary>
    internal Transactions.TransactionState Transaction => _transaction ??= new Transactions.TransactionState(Server.Watches);

    /// <summary>The MULTI/WATCH state, or null when this client never used them.</summary>
    public Transactions.TransactionState? TransactionIfAny => _transaction;

    /// <summary>RESET: leaves MULTI and forgets the watches.</summary>
    public void ResetTransaction() => _transaction?.Discard();

    /// <summary>True while EXEC runs queued commands: blocking commands answer at once as their non-blocking forms.</summary>
    public bool InExec { get; private set; }


    /// <summary>For EXEC: collects the AOF records of the commands run until EndExec, which appends them as one batch.</summary>
    internal CommandKeyLocks KeyLocksOfExec => Runner.KeyLocks;

    /// <summary>For EXEC: runs one queued command (its locks are held by EXEC) with its own arguments.</summary>
    internal void RunQueued(CommandDefinition cmd, byte[][] args, bool fromScript = false) => Runner.RunQueued(cmd, args, fromScript);

    /// <summary>For a script's redis.call: runs cmd with args under the script's locks; returns the reply's bytes.</summary>
    internal byte[] RunFromScript(CommandDefinition cmd, byte[][] args, int resp) => Runner.RunFromScript(cmd, args, resp);

    /// <summary>The running read of one key is validated after it ran (CommandKeyLocks' optimistic read).</summary>
    internal bool ReadIsValidatedAfter => Runner.ReadIsValidatedAfter;

    /// <summary>EXEC or a script begins: blocking commands answer at once, and writes go to the AOF as one block.</summary>
    internal void BeginExec()
    {
        InExec = true;
        Aof.BeginBatch();
    }

    internal void EndExec(bool discard = false)
    {
        InExec = false;
        Aof.EndBatch(discard);
    }

    /// <summary>Why writes are refused now (MISCONF), or null.</summary>
    internal string? WritesRefusal() => Stages.WritesRefusedCheck.RefusalNow(Server);

    /// <summary>True when this client is gone (closed here, or by its peer while its requests are not being read).</summary>
    public bool ConnectionGone => _killed || _connection.PeerHasClosed;

    public void OnClosed()
    {
        _transaction?.Discard();
        if (IsMonitor) Server.Monitors.Remove(this);
        if (_tracking is { On: true }) Server.Tracking.Disable(this, _tracking);
        if (_pubsub is not null) PubSubCommands.UnsubscribeAll(Context, notify: false);
        Server.Clients.Remove(this);
        Server.Stats.Retire(new Metrics.CounterTotals(CommandsProcessed, ErrorReplies, NetInputBytes, NetOutputBytes, KeyspaceHits, KeyspaceMisses), WritesApplied);
        _storage?.Dispose();
        Writer.Dispose();
    }

    /// <summary>Trims buffers held for one large request once the connection is idle.</summary>
    public void OnIdle()
    {
        _parser.Trim();
        _storage?.ReleaseIdleBuffers();
    }
}
