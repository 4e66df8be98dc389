// StorageSession: one connection's access to the store. Prefixes keys with the selected database's physical id and
// turns the engine's pending operations into a wait, so a command sees its own results in order and later commands
// of the connection never overtake an earlier one (the engine orders pending ops only among themselves).
// Invariants: one caller at a time (the connection's thread); Result belongs to the operation that just ran.
// Keyspace notifications (Events, when set): a write that created a key reports it (Redis's "new", from dbAdd); an
// operation that met an expired key reports "expired" once: when the operation itself replaced or deleted the record,
// or, for one that left it (a read), after deleting it here (DeleteIfExpired: exactly one deleter wins, as against
// active expiry), as Redis's lazy expiry deletes on access. With both classes off this costs a test of the status bits.
using Garnet.common.Resp;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

public sealed class StorageSession : IDisposable
{
    private readonly StoreHost _host;
    private readonly StoreSession<StringInput, StringOutput, StringFunctions> _session;
    private StoreSession<ObjectOperation, NoOutput, ObjectFunctions>? _objects; // collections (made on first use)
    private byte[] _key = new byte[256];

    public StorageSession(StoreHost host, RespWriter writer)
    {
        _host = host;
        Result.Writer = writer;
        _session = host.Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions { Writes = Result });
    }

    public OpResult Result { get; } = new();

    /// <summary>CLIENT NO-TOUCH: reads leave the keys' last access time as it was (TOUCH still sets it).</summary>
    public bool NoTouch { get => Result.NoTouch; set => Result.NoTouch = value; }

    /// <summary>Where created and expired keys are reported (the connection's session), or null.</summary>
    public IKeyEventSink? Events { get; set; }

    private int _database, _resolvedId = -1;

    /// <summary>Logical database of the connection (SELECT).</summary>
    public int Database
    {
        get => _database;
        set { if (value != _database) { _database = value; _resolvedId = -1; } }
    }

    /// <summary>
    /// Called before each command: the selected database's physical id is then resolved once for the whole command, so
    /// a SWAPDB or FLUSHDB running meanwhile cannot split one command across two databases.
    /// </summary>
    public void BeginCommand()
    {
        _resolvedId = -1;
        DeferPending = false; // only the command that sets it, for its own read
    }

    public StoreHost Host => _host;

    /// <summary>The stored form of a client's key in the selected database (valid until the next call).</summary>
    public ReadOnlySpan<byte> StoredKey(ReadOnlySpan<byte> key) => StoredKey(key, Database);

    public ReadOnlySpan<byte> StoredKey(ReadOnlySpan<byte> key, int db)
    {
        int room = Garnet.storage.Util.KeyHash.PrefixedRoom(key.Length);
        if (_key.Length < room) _key = new byte[Math.Max(room, _key.Length * 2)];
        // Written in the pieces the key hash loads next (KeyHash.WritePrefixed): the id big-endian, then the key.
        return _key.AsSpan(0, Garnet.storage.Util.KeyHash.WritePrefixed(_key, (ushort)PhysicalIdOf(db), key));
    }

    /// <summary>db's physical id: the selected database's is looked up once per command (BeginCommand clears it).</summary>
    private int PhysicalIdOf(int db)
    {
        if (db != _database) return _host.PhysicalId(db);
        if (_resolvedId < 0) _resolvedId = _host.PhysicalId(db);
        return _resolvedId;
    }

    private StringOutput Output()
    {
        Result.Reset();
        return new StringOutput { Result = Result };
    }

    /// <summary>validatedByCaller: see StoreSession.Read (the caller's key-stripe check after the command, RunHandler).</summary>
    public Status Read(ReadOnlySpan<byte> key, ref StringInput input, int db = -1, bool validatedByCaller = false)
    {
        bool defer = DeferPending;
        DeferPending = false; // for this read only
        var output = Output();
        var st = _session.Read(StoredKey(key, db < 0 ? Database : db), ref input, ref output, validatedByCaller);
        if (st.IsPending())
        {
            if (defer)
            {
                // The caller finishes the command once TryFinishDeferred says so (the completion callback fills Result and
                // may write the reply); no thread waits for the disk meanwhile.
                Result.Status = st; // before the completion sets the final one
                return st;
            }
            st = Wait();
        }
        Result.Status = st;
        if ((st & Status.Expired) != 0) Observe(st, key, db, replaced: false);
        return st;
    }

    /// <summary>GET's reply for key (whose KeyHash.HashKey is keyHash) in database db written to writer straight from memory
    /// (StoreSession.ReadInMemory with GetReplyReader), for the session's plain-read path: Found (the bulk string
    /// written), NotFound or Declined (nothing written; Declined: use Read). The caller holds the epoch (HoldEpoch) and
    /// validates the key's stripe afterwards.</summary>
    public InMemoryRead TryGetInMemory(ReadOnlySpan<byte> key, ulong keyHash, int db, RespWriter writer)
    {
        BeginCommand();
        Database = db;
        var reader = new GetReplyReader(writer, touch: !NoTouch);
        return _session.ReadInMemory((ushort)PhysicalIdOf(db), key, keyHash, ref reader);
    }

    /// <summary>Holds the store's epoch on this thread for a run of string Reads (StoreSession.HoldEpoch); nothing may wait
    /// until LeaveHeldEpoch.</summary>
    public void HoldEpoch() => _session.HoldEpoch();

    /// <summary>Ends HoldEpoch (no-op when not held).</summary>
    public void LeaveHeldEpoch() => _session.LeaveHeldEpoch();

    /// <summary>True when some records are on disk (below the log's in-memory part): only then can a key need a read.</summary>
    public bool HasDiskData => _host.Store.Log.HeadAddress > _host.Store.Log.BeginAddress;

    /// <summary>Starts bringing key's record into memory when it is on disk (StoreSession.Prefetch); true when a read was
    /// started. ReadAheadDone completes once every started read has.</summary>
    /// <remarks>objectKind (StoreSession.Prefetch): what the command needs of an object record, 0 for anything,
    /// StoreSession.HeaderOnly for its type only, an ObjectKind for a collection command (which reads through the
    /// collection session, so the header of a record of another type is remembered there and answers WRONGTYPE).
    /// forRead: the command only reads its keys, so a small string record is brought into memory only when the read
    /// admission lets it in, and is otherwise kept in the session until the command has read it (StoreSession.Prefetch);
    /// the caller then calls ReadAheadRequestDone after the request and ReadAheadIdle once its input is all consumed.</remarks>
    public bool ReadAhead(ReadOnlySpan<byte> key, byte objectKind = 0, bool forRead = false) =>
        objectKind is >= (byte)Garnet.server.Objects.ObjectKind.List and <= (byte)Garnet.server.Objects.ObjectKind.Stream
            ? Objects().Prefetch(StoredKey(key), objectKind).IsPending()
            : _session.Prefetch(StoredKey(key), objectKind, forRead).IsPending();

    /// <summary>A request that was read ahead has run: the records it read from those ReadAhead kept are given back.</summary>
    public void ReadAheadRequestDone() => _session.ForgetUsedRecords();

    /// <summary>Every request read ahead has run: whatever ReadAhead still keeps is given back.</summary>
    public void ReadAheadIdle() => _session.ForgetRememberedRecords();

    /// <summary>Completes when the reads ReadAhead started are done (no thread waits meanwhile).</summary>
    public Task ReadAheadDone() => _objects is { PendingCount: > 0 } objects
        ? Task.WhenAll(_session.CompletePendingAsync(), objects.CompletePendingAsync())
        : _session.CompletePendingAsync();

    /// <summary>Reads started by ReadAhead and not yet done.</summary>
    public int PendingReads => _session.PendingCount + (_objects?.PendingCount ?? 0);

    /// <summary>Set by a command that can finish later, for its next Read: if that goes to disk it returns Pending at once,
    /// and the command finishes once TryFinishDeferred returns true (RespServerSession.ReplyWhenReadsDone). Cleared by that
    /// Read.</summary>
    public bool DeferPending { get; set; }

    /// <summary>For a Read deferred with DeferPending: true once it (and every read before it) has completed, Result then
    /// holding its outcome; else false, and whenReady runs (inline on a disk reader's thread: short, never blocking) when
    /// another read has finished: call again then, on the caller's own thread. Throws what a failed read threw.</summary>
    public bool TryFinishDeferred(Action whenReady) =>
        _session.TryCompletePending(whenReady) && (_objects is null || _objects.TryCompletePending(whenReady));

    /// <summary>The same without registering anything: true when every deferred read has completed now.</summary>
    public bool TryFinishDeferredNow() =>
        _session.CompletePending(wait: false) && (_objects is null || _objects.CompletePending(wait: false));

    /// <summary>The same, waiting on this thread (sessions that cannot park: AOF replay, EXEC).</summary>
    public void FinishDeferredWaiting()
    {
        if (_session.PendingCount > 0) Wait();
        if (_objects is { PendingCount: > 0 } objects) WaitPending(objects);
    }

    public Status Rmw(ReadOnlySpan<byte> key, ref StringInput input, int db = -1)
    {
        var output = Output();
        var st = _session.Rmw(StoredKey(key, db < 0 ? Database : db), ref input, ref output);
        if (st.IsPending()) st = Wait();
        Result.Status = st;
        if ((st & Status.Expired) != 0 || ((st & Status.Created) != 0 && Events is not null)) Observe(st, key, db, replaced: (st & Status.Created) != 0);
        return st;
    }

    public Status Upsert(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expiration = 0, int db = -1) =>
        Upsert(key, value, null, expiration, db);

    /// <summary>Stores a large value the caller built or took (RespServerSession.TakeLargeArgument) as it is.</summary>
    public Status Upsert(ReadOnlySpan<byte> key, LargeValue value, long expiration = 0, int db = -1) =>
        Upsert(key, default, value, expiration, db);

    private Status Upsert(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, LargeValue? large, long expiration, int db)
    {
        if (Events is not null) BeforeBlindWrite(key, db);
        Output();
        var stored = StoredKey(key, db < 0 ? Database : db);
        var st = large is not null ? _session.Upsert(stored, large, expiration)
            : value.Length > LargeValue.InlineLimit
            ? _session.Upsert(stored, LargeValue.Copy(value), expiration)
            : _session.Upsert(stored, value, expiration);
        if (st.IsPending()) st = Wait();
        Result.Status = st;
        if ((st & Status.Created) != 0 && Events is not null) Observe(st, key, db, replaced: true);
        return st;
    }

    /// <summary>Stores a collection as key's value (replacing any value). The store owns the object from now on.</summary>
    public Status UpsertObject(ReadOnlySpan<byte> key, Garnet.server.Objects.CollectionObject value, long expiration = 0, int db = -1)
    {
        if (Events is not null) BeforeBlindWrite(key, db);
        Output();
        var st = Garnet.server.Objects.InlineCollection.Upsert(_session, StoredKey(key, db < 0 ? Database : db), value, expiration);
        if (st.IsPending()) st = Wait();
        Result.Status = st;
        if ((st & Status.Created) != 0 && Events is not null) Observe(st, key, db, replaced: true);
        return st;
    }

    private const int CreatedOrExpired = (int)(PubSub.NotifyClass.New | PubSub.NotifyClass.Expired);

    /// <summary>A blind write does not look at the old record: while "expired" or "new" events are on, an expired record
    /// is deleted (and reported) first, so the write then counts as a creation, as Redis's lookup before it would.</summary>
    private void BeforeBlindWrite(ReadOnlySpan<byte> key, int db)
    {
        if ((Events!.NotifyFlags & CreatedOrExpired) == 0) return;
        if ((_session.DeleteIfExpired(StoredKey(key, db < 0 ? Database : db)) & Status.Expired) != 0)
        {
            _host.CountExpired(1);
            Events.KeyExpired(key, db < 0 ? Database : db);
        }
    }

    /// <summary>Reports what an operation on key met: an expired record (replaced: the operation replaced or deleted it;
    /// otherwise it is deleted here, as Redis's lookups delete the expired keys they meet, notified or not), and a key it
    /// created.</summary>
    private void Observe(Status st, ReadOnlySpan<byte> key, int db, bool replaced)
    {
        var events = Events;
        int flags = events?.NotifyFlags ?? 0;
        int logical = db < 0 ? Database : db;
        if ((st & Status.Expired) != 0)
        {
            if (replaced) { if ((flags & (int)PubSub.NotifyClass.Expired) != 0) events!.KeyExpired(key, logical); }
            else if ((_session.DeleteIfExpired(StoredKey(key, logical)) & Status.Expired) != 0)
            {
                _host.CountExpired(1);
                if ((flags & (int)PubSub.NotifyClass.Expired) != 0) events!.KeyExpired(key, logical);
            }
        }
        if ((st & Status.Created) != 0 && (flags & (int)PubSub.NotifyClass.New) != 0) events!.KeyCreated(key, logical);
    }

    /// <summary>Stores a value fetched whole (StringOp.Fetch): a string's bytes or a collection.</summary>
    public Status UpsertFetched(ReadOnlySpan<byte> key, object value, long expiration = 0, int db = -1) => value is Garnet.server.Objects.CollectionObject c
        ? UpsertObject(key, c, expiration, db)
        : Upsert(key, (byte[])value, expiration, db);

    /// <summary>True when a live key was deleted.</summary>
    public bool Delete(ReadOnlySpan<byte> key, int db = -1)
    {
        Output();
        var st = _session.Delete(StoredKey(key, db < 0 ? Database : db));
        if (st.IsPending()) st = Wait();
        if ((st & Status.Expired) != 0 && Events is not null) Observe(st, key, db, replaced: true);
        return st == Status.Found;
    }

    /// <summary>Runs a read of a collection (ObjectOperation.Apply on it; Missing when there is none). Returns the status.</summary>
    public Status ReadObject(ReadOnlySpan<byte> key, ObjectOperation op, int db = -1)
    {
        var session = Objects();
        op.Error = null;
        op.NoTouch = NoTouch;
        NoOutput none = default;
        var st = session.Read(StoredKey(key, db < 0 ? Database : db), ref op, ref none);
        if (st.IsPending()) st = WaitObject(session, op);
        if (!st.IsFound() && !st.IsPending()) { if (op.Error is null) op.Missing(); }
        op.Status = st;
        if ((st & Status.Expired) != 0) Observe(st, key, db, replaced: false);
        return st;
    }

    /// <summary>Runs a read-only op on key's collection only if its record is in memory: true when it ran. Never waits
    /// for the disk, counts no lookup, touches nothing, reports no event (a read-ahead's look, StreamBlockReadAhead).
    /// When the record is on disk its read is issued and op runs when that completes (ReadAheadDone awaits it).</summary>
    public bool PeekObject(ReadOnlySpan<byte> key, ObjectOperation op)
    {
        op.Error = null;
        op.NoTouch = true;
        NoOutput none = default;
        var st = Objects().Read(StoredKey(key), ref op, ref none);
        return !st.IsPending() && st.IsFound() && op.Error is null;
    }

    /// <summary>Runs a change of a collection (creating it if the operation does; see ObjectFunctions).</summary>
    public Status UpdateObject(ReadOnlySpan<byte> key, ObjectOperation op, int db = -1)
    {
        var session = Objects();
        op.Error = null;
        NoOutput none = default;
        var st = session.Rmw(StoredKey(key, db < 0 ? Database : db), ref op, ref none);
        if (st.IsPending()) st = WaitObject(session, op);
        op.Status = st;
        if ((st & Status.Expired) != 0 || ((st & Status.Created) != 0 && Events is not null)) Observe(st, key, db, replaced: (st & Status.Created) != 0);
        return st;
    }

    private StoreSession<ObjectOperation, NoOutput, ObjectFunctions> Objects() =>
        _objects ??= _host.Store.NewSession<ObjectOperation, NoOutput, ObjectFunctions>(new ObjectFunctions());

    private Status WaitObject(StoreSession<ObjectOperation, NoOutput, ObjectFunctions> session, ObjectOperation op)
    {
        WaitPending(session);
        return op.Status;
    }

    /// <summary>Waits on this thread for session's pending operations, the loop handed to another thread meanwhile. No time
    /// limit: an op abandoned here would stay queued and later run against a reused receive buffer.</summary>
    private void WaitPending<TInput, TOutput, TFunctions>(StoreSession<TInput, TOutput, TFunctions> session)
        where TFunctions : struct, IStoreFunctions<TInput, TOutput>
    {
        _host.CountBlockingDiskWait();
        var released = Garnet.common.Networking.LoopRelease.Release(); // the loop's other clients are served meanwhile
        try { while (!session.CompletePending(wait: true, TimeSpan.FromMinutes(10))) { } }
        finally { released.Reacquire(); }
    }

    /// <summary>Deletes a raw stored key (used for purges).</summary>
    public void DeleteStored(ReadOnlySpan<byte> storedKey)
    {
        if (_session.Delete(storedKey).IsPending()) _session.CompletePending(wait: true);
    }

    private Status Wait()
    {
        WaitPending(_session);
        return Result.Status; // the completion callback stores the final status in Result
    }

    /// <summary>The connection went idle: the disk-read buffers kept for its next reads go back (StoreSession).</summary>
    public void ReleaseIdleBuffers()
    {
        _session.ReleaseIdleBuffers();
        _objects?.ReleaseIdleBuffers();
    }

    public void Dispose()
    {
        Events = null;
        _session.Dispose();
        _objects?.Dispose();
    }
}

/// <summary>Receives what a StorageSession saw happen to keys, for keyspace notifications (RespServerSession).</summary>
public interface IKeyEventSink
{
    /// <summary>notify-keyspace-events now (PubSub.NotifyClass flags; one volatile read).</summary>
    int NotifyFlags { get; }
    /// <summary>A write created key in logical database db (Redis's "new").</summary>
    void KeyCreated(ReadOnlySpan<byte> key, int db);
    /// <summary>key in db had expired and is gone now (Redis's "expired").</summary>
    void KeyExpired(ReadOnlySpan<byte> key, int db);
}
