// CommandContext: what a command handler sees of the request it runs: its arguments, the reply writer and error replies,
// the selected database's storage, keyspace notifications, and what a write propagates (Propagation).
// Invariants:
//  - One per connection, made with its session and reused for every command; valid only while a command runs on the
//    connection's own thread (arguments are slices of the receive buffer: copy what outlives the command).
//  - Connection-level state (client name, MULTI, subscriptions, tracking, reply modes) is the connection's, not the
//    command's: only the connection commands (CLIENT, HELLO, AUTH, RESET, MULTI/EXEC, SUBSCRIBE, ...) reach it, through
//    Client.
using System.Runtime.CompilerServices;
using System.Text;
using Garnet.common.Resp;
using Garnet.server.Persistence;

namespace Garnet.server.Session;

public sealed class CommandContext
{
    private readonly RespServerSession _session;

    internal CommandContext(RespServerSession session)
    {
        _session = session;
        Server = session.Server;
        Writer = session.Writer;
    }

    public RespServer Server { get; }
    public ServerSettings Settings => Server.Settings;

    /// <summary>The reply goes here.</summary>
    public RespWriter Writer { get; }

    /// <summary>The connection that sent the request: its own state, for the connection commands.</summary>
    public RespServerSession Client => _session;

    // ---- arguments ----

    /// <summary>Number of arguments including the command name.</summary>
    public int Argc
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => _session.Args.Count;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public ReadOnlySpan<byte> Arg(int index) => _session.Args[index];

    public string ArgString(int index) => System.Text.Encoding.UTF8.GetString(Arg(index));

    public bool ArgEquals(int index, ReadOnlySpan<byte> upperAscii) => Ascii.EqualsIgnoreCase(Arg(index), upperAscii);

    /// <summary>Where argument index lies (array, offset, length), for inputs that outlive a span (pending store ops).</summary>
    public void ArgLocation(int index, out byte[] data, out int offset, out int length) => _session.Args.Location(index, out data, out offset, out length);

    /// <summary>A large argument with the buffer it was received into, instead of a copy (null: copy it).</summary>
    internal Storage.LargeValue? TakeLargeArgument(int index) => _session.TakeLargeArgument(index);

    // ---- replies ----

    /// <summary>Writes an error reply (text starts with its code, e.g. "ERR ...") and counts it.</summary>
    public void WriteError(string message) => _session.WriteError(message);

    /// <summary>RESP version of the replies (2 or 3).</summary>
    public int Protocol => Writer.Protocol;

    /// <summary>Send the replies written so far, then close the connection.</summary>
    public void CloseAfterReply() => _session.CloseAfterReply();

    // ---- the keyspace ----

    /// <summary>The selected database's store.</summary>
    public Storage.StorageSession Storage => _session.Storage;

    /// <summary>The selected database (SELECT changes it).</summary>
    public int Database
    {
        get => _session.Database;
        set => _session.Database = value;
    }

    /// <summary>A read of a key's value (Redis's lookupKeyRead): INFO's keyspace_hits / misses.</summary>
    public void CountKeyLookup(bool hit) => _session.CountKeyLookup(hit);

    /// <summary>The same, announcing "keymiss" when it misses.</summary>
    public void CountKeyLookup(bool hit, ReadOnlySpan<byte> key) => _session.CountKeyLookup(hit, key);

    /// <summary>Redis's notifyKeyspaceEvent (a no-op unless notify-keyspace-events has cls).</summary>
    public void Notify(PubSub.NotifyClass cls, ReadOnlySpan<byte> evt, ReadOnlySpan<byte> key, int db = -1) => _session.Notify(cls, evt, key, db);

    /// <summary>Whether events of cls are on now (for work done only to announce something).</summary>
    public bool NotifyOn(PubSub.NotifyClass cls) => _session.NotifyOn(cls);

    /// <summary>key of db was changed outside the command's declared keys: WATCHes break, tracking clients are told.</summary>
    public void KeyChanged(int db, ReadOnlySpan<byte> key) => _session.KeyChanged(db, key);

    /// <summary>The running read of one key is validated after it ran (optimistic): it must not wait for other keys.</summary>
    internal bool ReadIsValidatedAfter => _session.ReadIsValidatedAfter;

    // ---- propagation: what a write sends to the AOF (and replicas) ----

    /// <summary>The write is propagated in this form instead of as sent (e.g. EXPIRE as PEXPIREAT).</summary>
    public void PropagateAs(params ArgRef[] args) => _session.Propagation.As(args);

    /// <summary>The write changed nothing: it is not propagated.</summary>
    public void PropagateNothing() => _session.Propagation.Nothing();

    /// <summary>The write is propagated as these commands, in one block when several (none: nothing).</summary>
    public void PropagateMany(List<ArgRef[]> commands) => _session.Propagation.Many(commands);

    /// <summary>For work done off the command's run (a served blocked client): propagates args now.</summary>
    internal void AppendToAof(ArgRef[] args) => _session.Aof.Append(args);

    /// <summary>AppendToAof for several commands (one block, replayed whole or not at all).</summary>
    internal void AppendManyToAof(List<ArgRef[]> commands) => _session.Aof.AppendMany(commands);

    // ---- replies that come later ----

    /// <summary>True when a command may leave its reply to ReplyWhenDone: on a connection's loop, outside EXEC.</summary>
    public bool CanFinishLater => _session.CanFinishLater;

    /// <summary>True while EXEC (or a script) runs the command: blocking commands answer at once.</summary>
    public bool InExec => _session.InExec;

    /// <summary>The reply is written by reply(context, work) once work has completed; later commands wait for it.</summary>
    public void ReplyWhenDone(Task work, Action<CommandContext, Task> reply) => _session.Deferred.WhenDone(work, reply);

    /// <summary>The reply is written by reply(context, error) once the command's deferred disk reads are done.</summary>
    public void ReplyWhenReadsDone(Action<CommandContext, Exception?> reply) => _session.Deferred.WhenReadsDone(reply);

    /// <summary>Keeps key for the reply of the command that finishes later (DeferredKey), without a closure.</summary>
    internal void KeepDeferredKey(ReadOnlySpan<byte> key) => _session.Deferred.KeepKey(key);

    /// <summary>The key KeepDeferredKey kept.</summary>
    internal ReadOnlySpan<byte> DeferredKey => _session.Deferred.Key;
}
