// ReadAhead: keeps a connection's thread from waiting on the disk. Before a command runs, the records of its keys that
// are on disk are read into memory (StorageSession.ReadAhead, which copies them to the log's tail, or for a read-only
// command keeps a record the read admission leaves out in the storage session until the command has run); the request is left
// unconsumed, the connection awaits the reads without a thread, and then parses and runs the same request again, now
// from memory. While the reads are issued, the requests already received behind it (a pipeline) are parsed too and
// their keys read as well, so one connection keeps many reads in flight.
// Invariants:
//  - Nothing runs before the reads: the command (and every request behind it) runs exactly once, in request order.
//  - A request is read ahead at most once: on its second pass it runs even if a record left memory again meanwhile
//    (it then waits for the disk as before), so a busy log cannot starve it.
//  - Only keys named by the command table are read (for EXEC: those of the queued commands; for EVAL/EVALSHA/FCALL: the
//    numkeys keys), in the selected database; other keys a command touches (MOVE's target database, a SELECT inside
//    MULTI, keys a script names without declaring them) wait for the disk the old way.
//  - Stream commands take a second step once their records are in memory (StreamBlockReadAhead): the spilled blocks
//    they will read are read the same way (request unconsumed, awaited without a thread) and pinned for the run. At most
//    one such step per request, after the record step.
using Garnet.common.Resp;
using Garnet.server.Commands;

namespace Garnet.server.Session;

internal sealed class ReadAhead
{
    /// <summary>Requests behind the current one that are parsed for their keys, at most.</summary>
    public const int MaxRequestsAhead = 64;

    private readonly RespServerSession _session;
    private readonly StreamBlockReadAhead _blocks;
    private bool _done; // the current request's reads are done: run it
    private bool _blocksDone; // the current request's stream blocks were looked for (and read, if any were missing)
    private bool _blocksWaiting; // Start awaits block reads for the current request
    private int _blockRounds; // rounds of block reads for the current request

    public ReadAhead(RespServerSession session)
    {
        _session = session;
        _blocks = new StreamBlockReadAhead(session);
    }

    /// <summary>Stream blocks read for the current request (StreamSpillFile.EnterRequest), or null.</summary>
    public Dictionary<long, byte[]>? PinnedBlocks => _blocks.Pinned;

    private static bool StreamBlocksEnabled => Garnet.server.Objects.Streams.StreamSpillFile.BlockReadAhead;

    /// <summary>True when cmd may run now; false when reads of its keys were started (the caller leaves the request
    /// unconsumed and awaits Pending, then runs it again).</summary>
    public bool Ready(CommandDefinition cmd, bool requestsBehind)
    {
        if (!_done && RecordReadsStarted(cmd, requestsBehind)) return false;
        if (_blocksDone || !StreamBlocksEnabled || cmd.PlanStreamBlocks is null || !_session.CanFinishLater) return true;
        if (_blocksWaiting)
        {
            _blocks.Pin();
            _blocksWaiting = false;
            if (!_blocks.NeedsReplan) { _blocksDone = true; return true; } // the plan was complete: run
        }
        // Plan, read, plan again with what was read (a range plan stops at a partly covered block it has not seen yet).
        bool grew = true;
        while (grew && ++_blockRounds <= StreamBlockReadAhead.MaxRounds)
            if (_blocks.StartCurrent(cmd, out grew)) return !(_blocksWaiting = true);
        _blocksDone = true;
        return true;
    }

    private bool RecordReadsStarted(CommandDefinition cmd, bool requestsBehind)
    {
        if (!_session.CanFinishLater || (cmd.DefersDiskReads && !requestsBehind)) return false;
        bool exec = IsExecOfQueuedCommands(cmd);
        if (!cmd.HasStoreKeys && !exec && !IsScriptCall(cmd)) return false;
        var st = _session.Storage;
        if (!st.HasDiskData) return false;
        return exec ? StartQueuedReads() : StartReads(cmd);
    }

    /// <summary>EVAL, EVALSHA, FCALL and their _RO forms: numkeys at argument 2, then the keys (a script runs under every
    /// key lock, where it cannot await a read, so the keys it declares are read first).</summary>
    private static bool IsScriptCall(CommandDefinition cmd) => cmd.KeyNumIndex > 0;

    private bool IsExecOfQueuedCommands(CommandDefinition cmd) =>
        cmd.RunsQueuedCommands && _session.TransactionIfAny is { InMulti: true, Commands.Count: > 0 };

    /// <summary>EXEC: the keys of every queued command (which run under EXEC's locks, where no read can be awaited).</summary>
    private bool StartQueuedReads()
    {
        var st = _session.Storage;
        bool any = false;
        foreach (var q in _session.TransactionIfAny!.Commands)
            foreach (var key in Transactions.TransactionCommands.KeysOf(q.Command, q.Args)) any |= st.ReadAhead(key);
        return any;
    }

    /// <summary>The current request has been executed (or refused): the next one is read ahead again.</summary>
    public void Executed()
    {
        _session.Storage.ReadAheadRequestDone();
        _done = false;
        _blocksDone = false;
        _blocksWaiting = false;
        _blockRounds = 0;
        _blocks.Executed();
    }

    private bool StartReads(CommandDefinition cmd)
    {
        var st = _session.Storage;
        bool any = false;
        if (!cmd.HasStoreKeys)
        {
            // a script call: numkeys, then the keys (a bad numkeys is left for the command to refuse)
            if (!cmd.TryGetCountedKeys(_session.Argc, i => _session.Arg(i), out int first, out int count)) return false;
            for (int i = first; i < first + count; i++) any |= st.ReadAhead(_session.Arg(i));
            return any;
        }
        var keys = cmd.KeysOf(_session.Context);
        byte kind = ObjectKindNeeded(cmd);
        bool forRead = (cmd.Flags & CommandFlags.ReadOnly) != 0;
        for (int i = keys.First, last = keys.LastIndex(_session.Argc); i <= last; i += keys.Stride) any |= st.ReadAhead(_session.Arg(i), kind, forRead);
        return any;
    }

    /// <summary>What cmd needs of an object record on disk (StorageSession.ReadAhead): nothing for a type or TTL query or
    /// a delete,
    /// its family's collection for a collection command, a large string for a string command (an object of another type
    /// is then a WRONGTYPE, answered from the record's header without loading the object), anything otherwise.</summary>
    internal static byte ObjectKindNeeded(CommandDefinition cmd) => cmd.Group switch
    {
        "hash" => (byte)Garnet.server.Objects.ObjectKind.Hash,
        "list" => (byte)Garnet.server.Objects.ObjectKind.List,
        "set" => (byte)Garnet.server.Objects.ObjectKind.Set,
        "sorted_set" or "geo" => (byte)Garnet.server.Objects.ObjectKind.SortedSet,
        "stream" => (byte)Garnet.server.Objects.ObjectKind.Stream,
        "string" or "bitmap" or "hyperloglog" => Garnet.server.Storage.LargeValue.SerializedType,
        _ => cmd.ReadsHeaderOnly ? Garnet.storage.Store.RecordRef.HeaderOnly : (byte)0,
    };

    /// <summary>After Ready returned false: starts the reads of the keys of the requests already received behind the
    /// current one, in data[next..end) (up to MaxRequestsAhead, within the read queue depth). Returns the wait for the
    /// stream blocks it started, or null: the records' reads are waited for through the storage session's pending
    /// operations (RespServerSession.ReplyWhenReadsDone, no allocation). The next pass runs the current request without
    /// reading ahead again.</summary>
    public Task? Start(RespRequestParser parser, byte[] data, int next, int end)
    {
        var st = _session.Storage;
        int depth = _session.Settings.ReadQueueDepth;
        for (int n = 0; n < MaxRequestsAhead && st.PendingReads < depth; n++)
        {
            var rest = data.AsSpan(next, end - next);
            if (rest.IsEmpty || parser.TryParse(rest, out int consumed) != ParseStatus.Complete) break;
            _session.ParsedAt(next);
            next += consumed;
            if (parser.ArgCount == 0) continue;
            var cmd = _session.Server.Commands.Find(_session.Arg(0));
            if (cmd is { HasSubcommands: true } && parser.ArgCount >= 2) cmd = cmd.FindSubcommand(_session.Arg(1));
            if (cmd is null || !(cmd.HasStoreKeys || IsScriptCall(cmd)) || !cmd.ArityMatches(parser.ArgCount)) continue;
            if (!StartReads(cmd) && StreamBlocksEnabled && cmd.PlanStreamBlocks is not null) _blocks.StartBehind(cmd);
        }
        parser.Reset(); // the last look may have stopped inside a request received in part
        _done = true;
        return _blocks.Wait() is { } blocks ? Task.WhenAll(st.ReadAheadDone(), blocks) : null;
    }
}
