// StorageSession: one connection's access to the store. Prefixes keys with the selected database's physical id and
// turns the engine's pending operations into a wait, so a command sees its own results in order and later commands
// of the connection never overtake an earlier one (the engine orders pending ops only among themselves).
// Invariants: one caller at a time (the connection's thread); Result belongs to the operation that just ran.
using Garnet.common.Resp;
using Garnet.storage.Store;

namespace Garnet.server.Storage;

public sealed class StorageSession : IDisposable
{
    private readonly StoreHost _host;
    private readonly StoreSession<StringInput, StringOutput, StringFunctions> _session;
    private byte[] _key = new byte[256];

    public StorageSession(StoreHost host, RespWriter writer)
    {
        _host = host;
        Result.Writer = writer;
        _session = host.Store.NewSession<StringInput, StringOutput, StringFunctions>(new StringFunctions { Writes = Result });
    }

    public OpResult Result { get; } = new();

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
    public void BeginCommand() => _resolvedId = -1;

    public StoreHost Host => _host;

    /// <summary>The stored form of a client's key in the selected database (valid until the next call).</summary>
    public ReadOnlySpan<byte> StoredKey(ReadOnlySpan<byte> key) => StoredKey(key, Database);

    public ReadOnlySpan<byte> StoredKey(ReadOnlySpan<byte> key, int db)
    {
        if (_key.Length < key.Length + 2) _key = new byte[Math.Max(key.Length + 2, _key.Length * 2)];
        int id;
        if (db != _database) id = _host.PhysicalId(db);
        else
        {
            if (_resolvedId < 0) _resolvedId = _host.PhysicalId(db);
            id = _resolvedId;
        }
        _key[0] = (byte)(id >> 8);
        _key[1] = (byte)id;
        key.CopyTo(_key.AsSpan(2));
        return _key.AsSpan(0, key.Length + 2);
    }

    private StringOutput Output()
    {
        Result.Reset();
        return new StringOutput { Result = Result };
    }

    public Status Read(ReadOnlySpan<byte> key, ref StringInput input, int db = -1)
    {
        var output = Output();
        var st = _session.Read(StoredKey(key, db < 0 ? Database : db), ref input, ref output);
        if (st.IsPending()) st = Wait();
        return Result.Status = st;
    }

    public Status Rmw(ReadOnlySpan<byte> key, ref StringInput input, int db = -1)
    {
        var output = Output();
        var st = _session.Rmw(StoredKey(key, db < 0 ? Database : db), ref input, ref output);
        if (st.IsPending()) st = Wait();
        return Result.Status = st;
    }

    public Status Upsert(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, long expiration = 0, int db = -1)
    {
        Output();
        var stored = StoredKey(key, db < 0 ? Database : db);
        var st = value.Length > LargeValue.InlineLimit
            ? _session.Upsert(stored, LargeValue.Copy(value), expiration)
            : _session.Upsert(stored, value, expiration);
        if (st.IsPending()) st = Wait();
        return Result.Status = st;
    }

    /// <summary>True when a live key was deleted.</summary>
    public bool Delete(ReadOnlySpan<byte> key, int db = -1)
    {
        Output();
        var st = _session.Delete(StoredKey(key, db < 0 ? Database : db));
        if (st.IsPending()) st = Wait();
        return st == Status.Found;
    }

    /// <summary>Deletes a raw stored key (used for purges).</summary>
    public void DeleteStored(ReadOnlySpan<byte> storedKey)
    {
        if (_session.Delete(storedKey).IsPending()) _session.CompletePending(wait: true);
    }

    private Status Wait()
    {
        // The completion callback stores the final status in Result.
        // No time limit: an op abandoned here would stay queued and later run against a reused receive buffer.
        while (!_session.CompletePending(wait: true, TimeSpan.FromMinutes(10))) { }
        return Result.Status;
    }

    public void Dispose() => _session.Dispose();
}
