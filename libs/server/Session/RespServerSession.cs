// RespServerSession: the state of one client connection and the request loop that runs its commands.
// Invariants:
//  - Only the connection's own thread calls Process/handlers; other threads read the public
//    properties (CLIENT LIST, INFO) racily, which is fine for figures, and call Kill().
//  - Arguments are slices of the receive buffer (or of the parser's scratch for inline requests),
//    valid only while the current command runs: handlers copy what they keep, or take a large one with its buffer
//    (TakeLargeArgument, after which the connection receives into a new buffer).
//  - Order of checks before a handler runs is Redis's: unknown command, unknown subcommand, arity (Resolve), then
//    authentication, not-in-MULTI, refused writes, RESP2 subscribed mode (Admit). In MULTI, an admitted command is
//    queued; otherwise its keys are locked (CommandKeyLocks; a read of one key reads optimistically and is redone
//    locked if an exclusive holder interfered) and RunHandler runs it, logs it to the AOF and breaks WATCHes on its
//    keys, all before the locks go. EXEC takes the locks of every queued key at once and calls RunHandler for each
//    command under them (Transactions/TransactionCommands), with the queued arguments in place of the parser's (_argv).
using System.Text;
using Garnet.common.Networking;
using Garnet.common.Resp;
using Garnet.server.Commands;
using Garnet.server.Persistence;
using Garnet.server.Transactions;
using Garnet.common.Util;
using Microsoft.Extensions.Logging;

namespace Garnet.server.Session;

public sealed class RespServerSession : IRequestHandler, Storage.IKeyEventSink
{
    /// <summary>Replies beyond this size are sent before more requests run.</summary>
    public const int FlushThreshold = 64 * 1024;

    private readonly RespRequestParser _parser;
    private readonly ISessionChannel _connection;
    private byte[] _input = Array.Empty<byte>();
    private int _inputStart;
    private bool _closeAfterReply;
    private volatile bool _killed;

    public RespServerSession(RespServer server, ISessionChannel connection)
    {
        Server = server;
        _connection = connection;
        _parser = new RespRequestParser(server.Settings.Limits);
        Id = server.Clients.NextId();
        CreatedMs = Environment.TickCount64;
        Authenticated = !server.Settings.PasswordRequired;
        // A connection sends its replies segment by segment, so a large value is sent from where it is stored (GET).
        Writer.AllowReferences = connection is not DetachedChannel;
    }

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
    public string LastCommand { get; private set; } = "NULL";
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
    private int _replyMark;      // where the running command's reply starts in Writer
    private bool _deferredMuted; // the deferred reply pending belongs to a muted command
    private bool _pauseHeld;     // the current request waits for CLIENT PAUSE to end (left unconsumed)

    // ---- counters, summed by ServerStatistics ----
    private long _commands, _errors, _writes;
    public long CommandsProcessed => Volatile.Read(ref _commands);
    /// <summary>Write commands of this client that succeeded (no error reply).</summary>
    public long WritesApplied => Volatile.Read(ref _writes);
    public long ErrorReplies => Volatile.Read(ref _errors);
    public long NetInputBytes => _connection.BytesIn;
    public long NetOutputBytes => _connection.BytesOut;
    private long _keyspaceHits, _keyspaceMisses;
    public long KeyspaceHits => Volatile.Read(ref _keyspaceHits);
    public long KeyspaceMisses => Volatile.Read(ref _keyspaceMisses);

    /// <summary>A read of a key's value (Redis's lookupKeyRead: GET, EXISTS, TTL, ...): INFO's keyspace_hits / misses.</summary>
    public void CountKeyLookup(bool hit)
    {
        if (hit) _keyspaceHits++;
        else _keyspaceMisses++;
    }

    /// <summary>The same, for a lookup of key that Redis announces when it misses ("keymiss", class m).</summary>
    public void CountKeyLookup(bool hit, ReadOnlySpan<byte> key)
    {
        if (hit) _keyspaceHits++;
        else
        {
            _keyspaceMisses++;
            Notify(PubSub.NotifyClass.KeyMiss, "keymiss"u8, key);
        }
    }

    // ---- arguments of the running command ----
    private byte[][]? _argv; // a queued command's arguments while EXEC runs it (null: the parser's)

    /// <summary>Number of arguments including the command name.</summary>
    public int Argc => _argv?.Length ?? _parser.ArgCount;

    public ReadOnlySpan<byte> Arg(int index)
    {
        if (_argv is not null) return _argv[index];
        if (_parser.ArgsInScratch) return _parser.GetArg(index, default);
        var s = _parser.GetSlice(index);
        return new ReadOnlySpan<byte>(_input, _inputStart + s.Offset, s.Length);
    }

    public string ArgString(int index) => Encoding.UTF8.GetString(Arg(index));

    /// <summary>Where argument index lies (array, offset, length), for inputs that outlive a span (pending store ops).</summary>
    public void ArgLocation(int index, out byte[] data, out int offset, out int length)
    {
        if (_argv is not null)
        {
            data = _argv[index];
            offset = 0;
            length = data.Length;
            return;
        }
        if (_parser.ArgsInScratch)
        {
            data = Arg(index).ToArray();
            offset = 0;
            length = data.Length;
            return;
        }
        var sl = _parser.GetSlice(index);
        data = _input;
        offset = _inputStart + sl.Offset;
        length = sl.Length;
    }

    // ---- a large argument kept without a copy ----
    private InputBuffer? _currentInput; // the input the running request was parsed from
    private bool _inputTaken;           // its buffer went to TakeLargeArgument's value

    /// <summary>Most bytes of a receive buffer besides the argument that TakeLargeArgument lets a value keep.</summary>
    private const int TakeSlack = 64 * 1024;

    /// <summary>
    /// Argument index (a large value, over LargeValue.InlineLimit) as a LargeValue that keeps the receive buffer it was
    /// received into, instead of a copy of it: null when that cannot be done, and the caller copies. It can when the
    /// request is the last one received, came from a connection (not a script, EXEC or AOF replay) and its buffer is
    /// about its own size (a large request's buffer grows to exactly what it needs: ReceiveBuffer). The connection then
    /// receives into a new buffer; the request's arguments stay readable until the command ends (the value never changes).
    /// </summary>
    internal Garnet.server.Storage.LargeValue? TakeLargeArgument(int index)
    {
        if (_argv is not null || _parser.ArgsInScratch || _inputTaken || _requestsBehind || InExec
            || _connection is DetachedChannel || _currentInput is not { } input || !ReferenceEquals(input.Data, _input))
            return null;
        var slice = _parser.GetSlice(index);
        if (slice.Length <= Garnet.server.Storage.LargeValue.InlineLimit || _input.Length - slice.Length > TakeSlack) return null;
        var value = Garnet.server.Storage.LargeValue.Wrap(_input, _inputStart + slice.Offset - 1, slice.Length); // over the header's '\n'
        input.Data = Garnet.common.Util.LargeBuffers.Rent(ReceiveBuffer.InitialReceiveSize);
        input.Start = input.End = 0;
        _inputTaken = true;
        return value;
    }

    private Storage.StorageSession? _storage;
    private CommandKeyLocks? _keyLocks;
    private Persistence.ArgRef[]? _propagateAs;
    private bool _propagateNothing;
    private long _aofLsn;

    /// <summary>Logs the running write command to the AOF in this form instead of as sent (e.g. a relative expiry made
    /// absolute, so that a replay means the same).</summary>
    public void PropagateAs(params Persistence.ArgRef[] args) => _propagateAs = args;

    /// <summary>For work done off the command's run (a served blocked client): logs args to the AOF, and the client's reply
    /// then waits until they are durable (--aof-fsync always), as a command's reply does.</summary>
    internal void AppendToAof(ArgRef[] args)
    {
        if (Server.Aof is { } aof) _aofLsn = aof.Append(Database, this, args);
    }

    /// <summary>The running write command changed nothing: it is not logged.</summary>
    public void PropagateNothing() => _propagateNothing = true;

    private List<ArgRef[]>? _propagateMany;

    /// <summary>Logs the running write command as these commands (none: nothing), in one AOF block when several (as
    /// Redis propagates XREADGROUP and XCLAIM as XCLAIMs and XGROUP SETID).</summary>
    public void PropagateMany(List<ArgRef[]> commands)
    {
        if (commands.Count == 0) { _propagateNothing = true; return; }
        if (commands.Count == 1) { _propagateAs = commands[0]; return; }
        _propagateMany = commands;
    }

    /// <summary>AppendToAof for several commands (one block, replayed whole or not at all).</summary>
    internal void AppendManyToAof(List<ArgRef[]> commands)
    {
        if (commands.Count == 0 || Server.Aof is not { } aof) return;
        if (commands.Count == 1) { AppendToAof(commands[0]); return; }
        _aofLsn = aof.AppendTransaction(commands.Select(c => (Database, AofLog.Materialize(this, c))).ToList());
    }

    /// <summary>Before replies go out: a deferred command's work is awaited and its reply written; with --aof-fsync always,
    /// replies wait until the writes they acknowledge are durable.</summary>
    public ValueTask BeforeSendAsync()
    {
        if (_deferredReads is not null) return FinishDeferredReads();
        if (_deferredWork is not null) return FinishDeferredAsync();
        return WaitDurableAsync();
    }

    // ---- a command that finishes once its disk read has (GET of a key on disk): no Task, no closure ----
    private Action<RespServerSession, Exception?>? _deferredReads;
    private DeferredReads? _readsWait;

    /// <summary>For a handler whose Read was deferred (StorageSession.DeferPending) and went to disk: reply(session, error)
    /// writes its reply once the read has completed (error: what the read threw), on this connection's thread. As
    /// ReplyWhenDone, without allocating.</summary>
    public void ReplyWhenReadsDone(Action<RespServerSession, Exception?> reply) => _deferredReads = reply;

    /// <summary>A deferred command's reply is still to come (ReplyWhenDone or ReplyWhenReadsDone).</summary>
    private bool HasDeferred => _deferredWork is not null || _deferredReads is not null;

    private ValueTask FinishDeferredReads()
    {
        var wait = _readsWait ??= new DeferredReads();
        var woken = wait.Arm(_connection.ResumesInline);
        Exception? error = null;
        try { if (!_storage!.TryFinishDeferred(wait.Wake)) return woken; }
        catch (Exception ex) { error = ex; }
        WriteDeferredReadsReply(error);
        return WaitDurableAsync();
    }

    /// <summary>At the start of a batch, a deferred read still open: its wake-up completed the ValueTask before the
    /// connection looked at it, so the connection went on. Finishes it if its reads are done; false: the connection must
    /// wait for it (ProcessRequests returns FlushAndContinue, then BeforeSendAsync waits).</summary>
    private bool TryFinishDeferredReadsNow()
    {
        Exception? error = null;
        try { if (!_storage!.TryFinishDeferredNow()) return false; }
        catch (Exception ex) { error = ex; }
        WriteDeferredReadsReply(error);
        return true;
    }

    private void WriteDeferredReadsReply(Exception? error)
    {
        var reply = _deferredReads!;
        _deferredReads = null;
        WriteDeferredReply(reply, error);
    }

    /// <summary>For callers that run sessions without a connection loop: waits for the deferred read here.</summary>
    private void FinishDeferredReadsBlocking()
    {
        Exception? error = null;
        try { _storage!.FinishDeferredWaiting(); }
        catch (Exception ex) { error = ex; }
        WriteDeferredReadsReply(error);
    }

    private ValueTask WaitDurableAsync()
    {
        var aof = Server.Aof;
        if (aof is null || _aofLsn == 0 || aof.Policy != Persistence.AofFsync.Always) return default;
        return aof.WaitDurableAsync(_aofLsn);
    }

    // ---- commands whose work runs off this connection's thread (SAVE, COMPACT, FLUSHALL SYNC, SHUTDOWN) ----
    private Task? _deferredWork;
    private Action<RespServerSession, Task>? _deferredReply;

    /// <summary>
    /// For a handler whose work may take long: it writes no reply itself; reply(session, work) writes it once work has
    /// completed (faulted or not). No later command of this client runs before that, and the thread that served this
    /// connection is free meanwhile (it serves other connections): the connection awaits the work in BeforeSendAsync.
    /// </summary>
    public void ReplyWhenDone(Task work, Action<RespServerSession, Task> reply)
    {
        _deferredWork = work;
        _deferredReply = reply;
    }

    private byte[] _deferredKey = [];
    private int _deferredKeyLength;

    /// <summary>Keeps key for the reply of the command that finishes later (DeferredKey), in a buffer the session reuses:
    /// a reply callback then needs no closure (one deferred command at a time per session).</summary>
    internal void KeepDeferredKey(ReadOnlySpan<byte> key)
    {
        if (_deferredKey.Length < key.Length || _deferredKey.Length > 4096) _deferredKey = new byte[Math.Max(key.Length, 64)];
        key.CopyTo(_deferredKey);
        _deferredKeyLength = key.Length;
    }

    /// <summary>The key KeepDeferredKey kept.</summary>
    internal ReadOnlySpan<byte> DeferredKey => _deferredKey.AsSpan(0, _deferredKeyLength);

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FinishDeferredAsync()
    {
        var work = _deferredWork!;
        var reply = _deferredReply!;
        _deferredWork = null;
        _deferredReply = null;
        try { await work.ConfigureAwait(false); }
        catch { /* the reply looks at the task */ }
        WriteDeferredReply(work, reply);
        await WaitDurableAsync().ConfigureAwait(false);
    }

    private void WriteDeferredReply(Task work, Action<RespServerSession, Task> reply) => WriteDeferredReply(reply, work);

    private void WriteDeferredReply<TState>(Action<RespServerSession, TState> reply, TState state)
    {
        int mark = Writer.Length;
        try { reply(this, state); }
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
        if (_afterReply is not null) WriteAfterReply();
        if (_pushTargets is { Count: > 0 }) SendDeferredPushes();
    }

    /// <summary>True when a command may leave its reply to ReplyWhenDone: on a connection's loop, outside EXEC.</summary>
    public bool CanFinishLater => !InExec && _connection.CanFinishLater;

    /// <summary>For callers that run sessions without a connection loop (AOF replay): waits for deferred work here.</summary>
    private void FinishDeferredBlocking()
    {
        var work = _deferredWork!;
        var reply = _deferredReply!;
        _deferredWork = null;
        _deferredReply = null;
        try { work.GetAwaiter().GetResult(); } catch { }
        WriteDeferredReply(work, reply);
    }

    /// <summary>This connection's access to the store, in its selected database.</summary>
    public Storage.StorageSession Storage
    {
        get
        {
            var st = _storage ??= new Storage.StorageSession(Server.Store, Writer) { Events = this };
            st.Database = Database;
            return st;
        }
    }

    public bool ArgEquals(int index, ReadOnlySpan<byte> upperAscii) => Ascii.EqualsIgnoreCase(Arg(index), upperAscii);

    /// <summary>Writes an error reply (text starts with its code, e.g. "ERR ...") and counts it.</summary>
    public void WriteError(string message)
    {
        _errors++;
        Server.Stats.Errors.Count(message);
        Writer.WriteError(message);
    }

    /// <summary>Send the replies written so far, then close the connection.</summary>
    public void CloseAfterReply() => _closeAfterReply = true;

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
        _timer.Flush(Server);
        // Messages this batch published went into their subscribers' push buffers: one send per subscriber now.
        if (_pushTargets is { Count: > 0 }) SendDeferredPushes();
        return result;
    }

    private ProcessResult ProcessRequests(InputBuffer input)
    {
        // A deferred reply not awaited by the caller (AOF replay): wait for it here.
        if (_deferredWork is not null) FinishDeferredBlocking();
        if (_deferredReads is not null && !TryFinishDeferredReadsNow()) return ProcessResult.FlushAndContinue;
        _timer.BeginBatch(Server);
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
                    if (_readAhead is not null) _storage?.ReadAheadIdle();
                    return ProcessResult.NeedMoreData;
                case ParseStatus.Empty:
                    input.Start += consumed;
                    continue;
                case ParseStatus.ProtocolError:
                    WriteError("ERR " + _parser.Error);
                    Server.LoggerFactory.CreateLogger("Garnet.Session").LogDebug("Protocol error from client {Id}: {Error}", Id, _parser.Error);
                    return ProcessResult.Close;
            }
            _input = input.Data;
            _inputStart = input.Start;
            _requestsBehind = consumed < input.Count;
            _currentInput = input;
            if (TryRunPlainRead())
            {
                input.Start += consumed;
                if (HasDeferred) return ProcessResult.FlushAndContinue;
                continue;
            }
            LeaveBatchEpoch();
            Execute();
            _plain = IsPlain();
            if (_pauseHeld)
            {
                // CLIENT PAUSE holds it: the request stays unconsumed and runs (or is held again) once the pause ends.
                _pauseHeld = false;
                _parser.Reset();
                ReplyWhenDone(Server.Pause.WhenReleased(), static (_, _) => { });
                return ProcessResult.FlushAndContinue;
            }
            if (_readAheadStarted)
            {
                // Its keys are being read from disk: the request stays unconsumed and runs once the reads are done.
                _readAheadStarted = false;
                if (_readAhead!.Start(_parser, input.Data, input.Start + consumed, input.End) is { } blocks) ReplyWhenDone(blocks, static (_, _) => { });
                else ReplyWhenReadsDone(static (_, _) => { }); // a failed read shows when the request runs again
                return ProcessResult.FlushAndContinue;
            }
            if (_busyWait is { } busyWait)
            {
                // Another client's script runs: this request stays unconsumed and runs again once it ends (or BUSY).
                _busyWait = null;
                _parser.Reset();
                ReplyWhenDone(busyWait, static (_, _) => { });
                return ProcessResult.FlushAndContinue;
            }
            _readAhead?.Executed();
            if (_inputTaken) _inputTaken = false; // the handler kept the buffer (TakeLargeArgument): input is a new, empty one
            else input.Start += consumed;
            if (_closeAfterReply) return ProcessResult.Close;
            // A deferred command: send what is written, await its work (BeforeSendAsync), then go on with the next request.
            if (HasDeferred) return ProcessResult.FlushAndContinue;
        }
    }

    /// <summary>For CLIENT PAUSE WRITE: whether the MULTI queue holds a write (or may-replicate) command.</summary>
    private bool QueuedWrites() => _transaction is { InMulti: true } tx
        && tx.Commands.Any(q => (q.Command.Flags & (CommandFlags.Write | CommandFlags.MayReplicate)) != 0);

    /// <summary>A monitor sees its own commands after their replies.</summary>
    internal void WriteMonitorLineToSelf(byte[] line) => (_afterReply ??= new List<byte[]>()).Add(line);

    private ReadAhead? _readAhead;
    private Task? _busyWait; // set by the busy gate: await it, then run the same request again
    private bool _readAheadStarted;
    private bool _requestsBehind; // bytes of later requests follow the one executing (a pipeline)

    /// <summary>For ReadAhead's look at later requests: the parser's arguments now lie at offset of the input.</summary>
    internal void ParsedAt(int offset) => _inputStart = offset;

    // ---- the plain-read path (docs/performance.md, issue 14's batch path) ----
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

    private bool IsPlain() => _transaction is not { InMulti: true } && _pubsub is not { Total: > 0 } && !IsMonitor
        && !ReplyOff && !ReplySkip && !ReplySkipNext && _tracking is null && _afterReply is null && !_closeAfterReply
        && CanFinishLater;

    private bool TryRunPlainRead()
    {
        if (!_plain || _plainCandidate is not { } cmd || _argv is not null) return false;
        if (!cmd.NameMatches(Arg(0)) || !cmd.ArityMatches(_parser.ArgCount)) return false;
        var server = Server;
        if (server.Pause.Mode != Clients.ClientPause.None || server.Scripts.Running is not null || server.Monitors.Count > 0
            || (!_authenticated && Settings.PasswordRequired) || NotifyOn(PubSub.NotifyClass.KeyMiss)
            || _storage is not { HasDiskData: false })
            return false;
        // GET's key, hashed once for its stripe and its index lookup (KeyHash: the stored key's hash derives from it).
        ulong keyHash = Garnet.storage.Util.KeyHash.HashKey(Arg(1));
        if (!(_keyLocks ??= new CommandKeyLocks(server.Store.Locks)).TryReadOptimistically(Garnet.server.Storage.KeyLocks.StripeOfHash(keyHash)))
            return false;
        _storage.HoldEpoch(); // once per run: a no-op while held
        if (!ReferenceEquals(LastCommand, cmd.FullName)) LastCommand = cmd.FullName;
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
        var server = Server;
        bool mayGroup = Metrics.CommandTimer.MayGroup(server, cmd);
        long started = _timer.Start(server, mayGroup);
        int mark = Writer.Length;
        var found = _storage!.TryGetInMemory(Arg(1), keyHash, Database, Writer);
        if (found == Garnet.storage.Store.InMemoryRead.NotFound && !Writer.TryWriteNullInPlace()) found = Garnet.storage.Store.InMemoryRead.Declined;
        if (found == Garnet.storage.Store.InMemoryRead.Declined)
        {
            RunHandler(cmd);
            return;
        }
        _optimisticRead = false;
        if (!_keyLocks!.EndOptimisticRead())
        {
            Writer.Truncate(mark);
            LeaveBatchEpoch(); // the stripe may make it wait
            _keyLocks.Acquire(cmd, this, orderWrites: false);
            try { RunHandler(cmd); }
            finally { _keyLocks.Release(); }
            return;
        }
        _commands++;
        if (found == Garnet.storage.Store.InMemoryRead.Found) _keyspaceHits++;
        else _keyspaceMisses++;
        long ticks = _timer.Ended(server, cmd, started, failed: false, mayGroup, small: true);
        if (ticks >= 0) Metrics.CommandObserver.Ran(this, cmd, ticks, failed: false);
    }

    /// <summary>Gives up the epoch the batch's plain reads held (before anything that may wait).</summary>
    private void LeaveBatchEpoch()
    {
        _storage?.LeaveHeldEpoch(); // a no-op when not held
    }

    private static long s_lastSecurityWarningMs = -1_000_000; // far enough back that the first warning is logged

    private void Execute()
    {
        bool muted = ReplyOff || ReplySkip;
        _replyMark = -1;
        ExecuteCore();
        if (_pauseHeld || _readAheadStarted) return; // it runs again later
        if (muted && (ReplyOff || ReplySkip) && _replyMark >= 0)
        {
            // CLIENT REPLY OFF / SKIP: the reply is dropped (CLIENT REPLY ON clears the flags first, so its +OK goes out).
            if (HasDeferred) _deferredMuted = true;
            else if (Writer.Length > _replyMark) Writer.Truncate(_replyMark);
        }
        if (ReplySkip) ReplySkip = false;
        if (ReplySkipNext) { ReplySkip = true; ReplySkipNext = false; }
    }

    private void ExecuteCore()
    {
        // Messages pushed to this subscriber before this command go out before its reply, as in Redis's output buffer
        // (up to a flush's worth: a larger backlog goes out after the batch, so replies never carry it into the
        // normal class's output limit).
        if (_pubsub is { Total: > 0 } && _connection.PendingPushBytes is > 0 and <= FlushThreshold) _connection.DrainPushes(Writer);
        _replyMark = Writer.Length;
        var cmd = Resolve();
        if (cmd is null || !Admit(cmd))
        {
            if (cmd is not null) Server.CommandStats.Rejected(cmd.Id);
            _transaction?.FlagQueueingError(); // as Redis: a command refused while queueing fails the EXEC
            return;
        }
        // CLIENT PAUSE: held before it is queued or run, as Redis's processCommand (monitors, Redis's replicas, never are).
        if (Server.Pause.Mode != Clients.ClientPause.None && !IsMonitor && CanFinishLater && Server.Pause.Holds(cmd, QueuedWrites))
        {
            _pauseHeld = true;
            return;
        }
        if (_transaction is { InMulti: true } && !cmd.RunsInMulti)
        {
            TransactionCommands.Queue(this, cmd);
            return;
        }
        // While another client's script runs, wait for it (up to busy-reply-threshold), then answer BUSY
        // (Scripting/ScriptRunner.BusyGate). The wait leaves the request unconsumed and this thread free (ProcessRequests).
        if (Server.Scripts.Running is not null && (cmd.Flags & CommandFlags.AllowBusy) == 0)
        {
            switch (Server.Scripts.BusyGate(this, CanFinishLater, out var wait, out string? busy))
            {
                case Scripting.ScriptRunner.GateOutcome.Busy:
                    Server.CommandStats.Rejected(cmd.Id);
                    WriteError(busy!);
                    return;
                case Scripting.ScriptRunner.GateOutcome.WaitLater:
                    _busyWait = wait;
                    return;
            }
        }
        if (!(_readAhead ??= new ReadAhead(this)).Ready(cmd, _requestsBehind))
        {
            _readAheadStarted = true;
            return;
        }
        bool feed = Server.Monitors.Count > 0 && Clients.MonitorFeed.Shows(cmd);
        if (feed && Clients.MonitorFeed.IsScriptCall(cmd)) { Server.Monitors.Feed(this, fromScript: false); feed = false; }
        // A stream command finds the spilled blocks its read-ahead loaded; any other read of the spill file is counted.
        var spillScope = Objects.Streams.StreamSpillFile.EnterRequest(_readAhead.PinnedBlocks);
        try { RunLocked(cmd); }
        finally { spillScope.Exit(); }
        if (feed) Server.Monitors.Feed(this, fromScript: false);
        // CLIENT CACHING applies to the next command (or transaction) only, as in Redis.
        if (_tracking is { CachingGiven: true } && _transaction is not { InMulti: true } && !cmd.FullName.StartsWith("client|", StringComparison.Ordinal)) _tracking.CachingGiven = false;
        if (_afterReply is not null) WriteAfterReply();
    }

    // ---- pub/sub (PubSub/PubSubCommands, PubSubRegistry) ----
    private PubSub.PubSubClient? _pubsub;
    private List<byte[]>? _afterReply;

    /// <summary>This client's subscriptions (made on first use).</summary>
    internal PubSub.PubSubClient PubSubState => _pubsub ??= new PubSub.PubSubClient(this);

    /// <summary>This client's subscriptions, or null when it never subscribed (read by CLIENT LIST from any thread).</summary>
    public PubSub.PubSubClient? Subscriptions => _pubsub;

    /// <summary>Redis's CLIENT_PUBSUB flag: the client has a subscription (in RESP2 it may then run only the pub/sub
    /// commands, PING, QUIT and RESET).</summary>
    public bool IsSubscribed => _pubsub is { Total: > 0 };

    /// <summary>A message this session published to itself: written after the running command's reply (Redis 7.2's
    /// pending push messages), so it never lands inside that reply (an EXEC array, say).</summary>
    internal void PushAfterReply(ReadOnlySpan<byte> message) => (_afterReply ??= new List<byte[]>()).Add(message.ToArray());

    // ---- keyspace notifications (PubSub/KeyspaceEvents) ----

    /// <summary>
    /// Redis's notifyKeyspaceEvent: publishes evt for key (in db, default the selected one) when notify-keyspace-events
    /// has cls. Off, it costs one volatile read. Handlers call it where Redis does, after the change.
    /// </summary>
    public void Notify(PubSub.NotifyClass cls, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db = -1)
    {
        var on = (PubSub.NotifyClass)Settings.NotifyKeyspaceEvents;
        if ((on & cls) == 0) return;
        PubSub.KeyspaceEvents.Publish(Server.PubSub, on, evt, key, db < 0 ? Database : db, this);
    }

    /// <summary>Whether events of cls are on now (for work done only to announce something).</summary>
    public bool NotifyOn(PubSub.NotifyClass cls) => (Settings.NotifyKeyspaceEvents & (int)cls) != 0;

    // Tracking clients are told when a key expires, as Redis tells them: the lazy-expiry path runs while either is on.
    int Storage.IKeyEventSink.NotifyFlags => Settings.NotifyKeyspaceEvents | (Server.Tracking.Active ? (int)PubSub.NotifyClass.Expired : 0);

    void Storage.IKeyEventSink.KeyCreated(ReadOnlySpan<byte> key, int db) => Notify(PubSub.NotifyClass.New, "new"u8, key, db);

    void Storage.IKeyEventSink.KeyExpired(ReadOnlySpan<byte> key, int db)
    {
        Notify(PubSub.NotifyClass.Expired, "expired"u8, key, db);
        if (Server.Tracking.Active) Server.Tracking.Invalidate(null, key);
    }

    private List<Garnet.common.Networking.ISessionChannel>? _pushTargets;

    /// <summary>A message for another client was queued on target as its first pending one without being sent
    /// (PushDeferred): it is sent when this batch of requests is done, with the others queued meanwhile.</summary>
    internal void PushedTo(Garnet.common.Networking.ISessionChannel target) => (_pushTargets ??= new()).Add(target);

    private void SendDeferredPushes()
    {
        foreach (var target in _pushTargets!) target.SendPushes();
        _pushTargets.Clear();
    }

    private void WriteAfterReply()
    {
        foreach (var m in _afterReply!) Writer.WriteRaw(m);
        _afterReply = null;
    }

    /// <summary>The command named by the request (its subcommand where it has them), with the right number of arguments;
    /// null after writing Redis's error.</summary>
    private CommandDefinition? Resolve()
    {
        var name = Arg(0);
        var cmd = Server.Commands.Find(name);
        if (cmd is null)
        {
            if (Ascii.EqualsIgnoreCase(name, "POST"u8) || Ascii.EqualsIgnoreCase(name, "HOST:"u8))
            {
                long now = Environment.TickCount64, last = Interlocked.Read(ref s_lastSecurityWarningMs);
                if (now - last > 60_000 && Interlocked.CompareExchange(ref s_lastSecurityWarningMs, now, last) == last)
                    Server.LoggerFactory.CreateLogger("Garnet.Session").LogWarning(
                        "Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. Connection aborted.");
                _closeAfterReply = true;
                return null;
            }
            WriteUnknownCommand();
            return null;
        }
        if (cmd.HasSubcommands && Argc >= 2)
        {
            var sub = cmd.FindSubcommand(Arg(1));
            if (sub is null)
            {
                WriteError($"ERR unknown subcommand '{Truncate(ArgString(1), 128)}'. Try {cmd.Name.ToUpperInvariant()} HELP.");
                return null;
            }
            cmd = sub;
        }
        LastCommand = cmd.FullName;
        if (cmd.PlainRead) _plainCandidate = cmd;
        if (!cmd.ArityMatches(Argc) || cmd.Handler is null)
        {
            Server.CommandStats.Rejected(cmd.Id);
            WriteError($"ERR wrong number of arguments for '{cmd.FullName}' command");
            return null;
        }
        // As Redis's processCommand, right after the arity check (before NOAUTH): DEBUG under enable-debug-command.
        if ((cmd.Flags & CommandFlags.Protected) != 0 && !Config.ProtectedActions.Allows(Settings.EnableDebugCommand, _connection))
        {
            Server.CommandStats.Rejected(cmd.Id);
            WriteError(Config.ProtectedActions.DebugNotAllowedError);
            return null;
        }
        return cmd;
    }

    /// <summary>Whether this client may run cmd now (authentication, refused writes, MULTI); false after writing why not.</summary>
    private bool Admit(CommandDefinition cmd)
    {
        if (!_authenticated && (cmd.Flags & CommandFlags.NoAuth) == 0 && Settings.PasswordRequired)
        {
            WriteError("NOAUTH Authentication required.");
            return false;
        }
        if (IsMonitor && (cmd.Flags & (CommandFlags.Write | CommandFlags.ReadOnly | CommandFlags.MayReplicate)) != 0)
        {
            // As Redis: a monitor is a replica to it, and replicas may not touch the keyspace.
            WriteError("ERR Replica can't interact with the keyspace");
            return false;
        }
        if (_transaction is { InMulti: true } && (cmd.Flags & CommandFlags.NoMulti) != 0)
        {
            WriteError("ERR Command not allowed inside a transaction");
            return false;
        }
        if ((cmd.Flags & CommandFlags.Write) != 0 && WritesRefusedBecause() is { } refusal)
        {
            // As Redis: while data cannot be persisted, writes are refused (reads go on); they resume by themselves once it can.
            WriteError(refusal);
            return false;
        }
        if (_pubsub is { Total: > 0 } && Protocol == 2 && !PubSubCommands.AllowedWhileSubscribed(cmd))
        {
            PubSubCommands.RefuseWhileSubscribed(this, cmd);
            return false;
        }
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
            if (cmd.HasStoreKeys && !NotifyOn(PubSub.NotifyClass.KeyMiss)
                && (_keyLocks ??= new CommandKeyLocks(Server.Store.Locks)).TryReadOptimistically(cmd, this))
                _optimisticRead = true;
            else if (cmd.HasStoreKeys) locked = (_keyLocks ??= new CommandKeyLocks(Server.Store.Locks)).Acquire(cmd, this, orderWrites: Server.Aof is not null);
            else if ((cmd.Flags & CommandFlags.Write) != 0)
            {
                // A write without keys (FLUSHDB, FLUSHALL, SWAPDB) changes every key: it runs, and is logged, alone.
                Server.Store.Locks.EnterAll();
                lockedAll = true;
            }
            RunHandler(cmd);
        }
        finally
        {
            _optimisticRead = false;
            if (locked) _keyLocks!.Release();
            if (lockedAll) Server.Store.Locks.ExitAll();
        }
        // Clients blocked on a key this write touched try again (the first in line for each key).
        if ((cmd.Flags & CommandFlags.Write) != 0 && Server.Blocked.Count > 0 && cmd.HasStoreKeys) SignalBlocked(cmd);
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
        _commands++;
        _storage?.BeginCommand();
        // A script's command replies to the script, not to the client: no client-output-buffer-limit (Redis's script
        // client has none; the script's reply to the client has it, and lua-memory-limit bounds what the script takes).
        Writer.Limit = _scriptCall ? 0 : Settings.Limits.OutputBufferHardLimit;
        int mark = Writer.Length;
        long errorsBefore = _errors;
        // Within a batch a command starts when the one before it ended (its parsing and dispatch count as its own time);
        // back-to-back fast commands share clock readings (Metrics/CommandTimer).
        bool mayGroup = Metrics.CommandTimer.MayGroup(Server, cmd);
        long started = _timer.Start(Server, mayGroup);
        try
        {
            _propagateAs = null;
            _propagateMany = null;
            _propagateNothing = false;
            long hitsBefore = _keyspaceHits, missesBefore = _keyspaceMisses;
            FaultPoints.Hit("command"); // test seam: a handler's failure
            cmd.Handler!(this);
            if (_optimisticRead)
            {
                _optimisticRead = false;
                // A read that finishes later (from disk) reads its record again then; otherwise an exclusive holder's
                // work overlapped the read: its reply and counts are undone and it runs again holding the stripe.
                if (!_keyLocks!.EndOptimisticRead() && !HasDeferred)
                {
                    Writer.Truncate(mark);
                    _errors = errorsBefore;
                    _keyspaceHits = hitsBefore;
                    _keyspaceMisses = missesBefore;
                    LeaveBatchEpoch(); // the stripe may make it wait
                    _keyLocks.Acquire(cmd, this, orderWrites: false);
                    try { cmd.Handler!(this); }
                    finally { _keyLocks.Release(); }
                }
            }
            if ((cmd.Flags & CommandFlags.Write) != 0 && _errors == errorsBefore)
            {
                _writes++;
                // Logged while the command's keys are still locked (writes exclusively when the AOF is on): the AOF has each
                // key's writes in the order they ran.
                if (Server.Aof is { } aof && !_propagateNothing)
                {
                    if (_propagateMany is { } many)
                    {
                        if (_transactionLog is not null) foreach (var c in many) _transactionLog.Add((Database, AofLog.Materialize(this, c)));
                        else _aofLsn = aof.AppendTransaction(many.Select(c => (Database, AofLog.Materialize(this, c))).ToList());
                    }
                    else if (_transactionLog is not null) _transactionLog.Add((Database, AofLog.Materialize(this, _propagateAs)));
                    else _aofLsn = aof.Append(Database, this, _propagateAs);
                }
                if (!_propagateNothing && cmd.HasStoreKeys && (Server.Watches.Any || Server.Tracking.Active)) KeysChanged(cmd);
            }
            else if (_tracking is { RemembersReads: true } && (cmd.Flags & CommandFlags.ReadOnly) != 0 && cmd.HasStoreKeys && _errors == errorsBefore)
                RememberReads(cmd);
        }
        catch (ReplyLimitException ex)
        {
            // As Redis's client-output-buffer-limit: the client is dropped; the reply never took more than the limit.
            Writer.Truncate(mark);
            _closeAfterReply = true;
            Server.LoggerFactory.CreateLogger("Garnet.Session").LogWarning("Client {Id} closed while running {Command}: {Reason}", Id, cmd.FullName, ex.Message);
        }
        catch (Garnet.storage.Log.LogDeviceException)
        {
            // The device's failure is logged once by the store; the client is told as Redis tells it about a failing disk.
            Writer.Truncate(mark);
            WriteError("MISCONF Errors writing to the log device (disk full or failing): writes are refused until it can be written again; see the server log");
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            // A bug in one command must not take the connection down: drop its partial reply, answer with an error.
            Writer.Truncate(mark);
            WriteError("ERR internal error while running '" + cmd.FullName + "'" + InternalErrors.Detail(ex));
            Server.LoggerFactory.CreateLogger("Garnet.Session").LogError(ex, "Command {Command} failed", cmd.FullName);
        }
        bool failed = _errors != errorsBefore;
        bool small = !HasDeferred && !_closeAfterReply && Writer.Length - mark < Metrics.CommandTimer.SmallReply;
        long ticks = _timer.Ended(Server, cmd, started, failed, mayGroup, small);
        if (ticks >= 0) Metrics.CommandObserver.Ran(this, cmd, ticks, failed);
    }

    private readonly Metrics.CommandTimer _timer = new();

    /// <summary>A write changed the keys of cmd: WATCHes on them break and clients that may cache them are told.</summary>
    private void KeysChanged(CommandDefinition cmd)
    {
        var keys = cmd.KeysOf(this);
        for (int i = keys.First, last = keys.LastIndex(Argc); i <= last; i += keys.Stride) KeyChanged(Database, Arg(i));
    }

    /// <summary>key of db was changed by this client (called under the key's lock).</summary>
    public void KeyChanged(int db, ReadOnlySpan<byte> key)
    {
        Server.Watches.Touch(db, key);
        if (Server.Tracking.Active) Server.Tracking.Invalidate(this, key);
    }

    private void RememberReads(CommandDefinition cmd)
    {
        var keys = cmd.KeysOf(this);
        for (int i = keys.First, last = keys.LastIndex(Argc); i <= last; i += keys.Stride) Server.Tracking.Remember(this, Arg(i));
    }

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
    private List<(int Db, byte[][] Args)>? _transactionLog;

    /// <summary>This client's MULTI/WATCH state (made on first use).</summary>
    internal Transactions.TransactionState Transaction => _transaction ??= new Transactions.TransactionState(Server.Watches);

    /// <summary>The MULTI/WATCH state, or null when this client never used them.</summary>
    public Transactions.TransactionState? TransactionIfAny => _transaction;

    /// <summary>RESET: leaves MULTI and forgets the watches.</summary>
    public void ResetTransaction() => _transaction?.Discard();

    /// <summary>True while EXEC runs queued commands: blocking commands answer at once as their non-blocking forms.</summary>
    public bool InExec { get; private set; }

    /// <summary>For EXEC: runs one queued command (its locks are held by EXEC) with its own arguments in place of the request's.</summary>
    internal void RunQueued(CommandDefinition cmd, byte[][] args, bool fromScript = false)
    {
        var saved = _argv;
        _argv = args;
        try
        {
            LastCommand = cmd.FullName;
            bool feed = Server.Monitors.Count > 0 && Clients.MonitorFeed.Shows(cmd);
            if (feed && Clients.MonitorFeed.IsScriptCall(cmd)) { Server.Monitors.Feed(this, fromScript); feed = false; }
            RunHandler(cmd);
            if (feed) Server.Monitors.Feed(this, fromScript);
            if (_deferredWork is not null) FinishDeferredBlocking(); // inside EXEC the reply takes its place in the array
            if (_deferredReads is not null) FinishDeferredReadsBlocking();
        }
        finally { _argv = saved; }
    }

    /// <summary>For EXEC: collects the AOF records of the commands run until EndExec, which appends them as one batch.</summary>
    internal CommandKeyLocks KeyLocksOfExec => _keyLocks ??= new CommandKeyLocks(Server.Store.Locks);

    internal void BeginExec()
    {
        InExec = true;
        if (Server.Aof is not null) _transactionLog = new List<(int, byte[][])>();
    }

    internal void EndExec(bool discard = false)
    {
        InExec = false;
        var log = _transactionLog;
        _transactionLog = null;
        if (!discard && log is { Count: > 0 } && Server.Aof is { } aof) _aofLsn = aof.AppendTransaction(log);
    }

    private bool _scriptCall; // RunFromScript runs a command now

    /// <summary>For a script's redis.call: runs cmd with args under the locks the script holds, as EXEC runs a queued
    /// command, with replies in the script's protocol; returns the reply's bytes (removed from the client's output).</summary>
    internal byte[] RunFromScript(CommandDefinition cmd, byte[][] args, int resp)
    {
        int mark = Writer.Length;
        int protocol = Writer.Protocol;
        bool references = Writer.AllowReferences;
        long limit = Writer.Limit;
        string last = LastCommand;
        Writer.Protocol = resp;
        Writer.AllowReferences = false; // the reply is read back from the buffer below
        _scriptCall = true;
        try { RunQueued(cmd, args, fromScript: true); }
        catch
        {
            Writer.Truncate(mark); // a reply that failed part way (a deferred read's) never reaches the client
            throw;
        }
        finally
        {
            _scriptCall = false;
            Writer.Protocol = protocol;
            Writer.AllowReferences = references;
            Writer.Limit = limit;
            LastCommand = last;
        }
        var reply = Writer.WrittenSpan[mark..].ToArray();
        Writer.Truncate(mark);
        return reply;
    }

    /// <summary>Why writes are refused now (MISCONF), or null.</summary>
    internal string? WritesRefusal() => WritesRefusedBecause();

    private void SignalBlocked(CommandDefinition cmd)
    {
        var keys = cmd.KeysOf(this);
        for (int i = keys.First, last = keys.LastIndex(Argc); i <= last; i += keys.Stride) Server.Blocked.Signal(Database, Arg(i));
    }

    /// <summary>True when this client is gone (closed here, or by its peer while its requests are not being read).</summary>
    public bool ConnectionGone => _killed || _connection.PeerHasClosed;

    /// <summary>Why writes are refused now (Redis's MISCONF), or null when they are accepted.</summary>
    private string? WritesRefusedBecause()
    {
        if (Server.Aof is { LastWriteOk: false }) return "MISCONF Errors writing to the AOF file: see the server log";
        if (Server.Store.Store.Log.DeviceFailing)
            return "MISCONF Errors writing to the log device (disk full or failing): writes are refused until it can be written again; see the server log";
        if (Server.Store.DiskGuard.Refusing) return Server.Store.DiskGuard.Refusal();
        // stop-writes-on-bgsave-error: with save rules, a failed checkpoint refuses writes until one succeeds (retried every 5 s).
        if (Server.Checkpoints.Rules.Count > 0 && !Server.Checkpoints.LastSaveOk)
            return "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";
        return null;
    }

    private void WriteUnknownCommand()
    {
        var args = new StringBuilder();
        for (int i = 1; i < Argc && args.Length < 128; i++)
            args.Append('\'').Append(Truncate(ArgString(i), 128 - args.Length)).Append("' ");
        WriteError($"ERR unknown command '{Truncate(ArgString(0), 128)}', with args beginning with: {args}");
    }

    private static string Truncate(string s, int max) => s.Length <= max ? s : s[..max];

    public void OnClosed()
    {
        _transaction?.Discard();
        if (IsMonitor) Server.Monitors.Remove(this);
        if (_tracking is { On: true }) Server.Tracking.Disable(this, _tracking);
        if (_pubsub is not null) PubSubCommands.UnsubscribeAll(this, notify: false);
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
