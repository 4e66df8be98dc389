// StreamBlockReadAhead: the second step of ReadAhead for stream commands. Once a stream's record is in memory, the
// spilled blocks the command will read (StreamSpillFile) are found from its arguments and the stream's block list,
// read with ReadAsync (the connection awaits them without a thread), and pinned for the command's run
// (StreamSpillFile.EnterRequest), so it reads them from memory. Requests behind it in a pipeline have their blocks read
// into the spill file's cache in the same wait.
// Invariants:
//  - A plan is a hint: it reads only listed extents of the stream version it looked at (under the record's shared lock,
//    inside the store's Read), never changes anything, and a block it missed is read synchronously (and counted).
//  - A block the page cache holds is copied at once (StreamSpillFile.TryReadFromPageCache, never waits); only the
//    others are read asynchronously and awaited.
//  - A range plan stops at a block it only partly covers until that block's bytes are known (then it counts its entries
//    in range): a command takes at most MaxRounds rounds of reads, then runs (a block still missing is read on the thread).
//  - The pins belong to the current request only (Executed clears them); blocks read for requests behind are held by
//    this connection (at most MaxBlocksBehind) until one of its requests uses them; at most MaxBlocksPerCommand per request and
//    MaxBlocksInFlight per wait, so one command cannot fill memory.
//  - Which blocks a command reads is its declaration's PlanStreamBlocks (in Commands/Streams), which calls one of the plans
//    below with the positions of its arguments: XRANGE/XREVRANGE the blocks overlapping the range up to COUNT live entries
//    (PlanRange); XREAD the blocks after each ID; XREADGROUP ">" those after the group's last ID, a history ID the blocks of
//    the consumer's pending IDs (PlanRead); XCLAIM/XDEL the blocks of the IDs named (PlanIds); XAUTOCLAIM those of the
//    group's pending IDs from start (PlanAutoClaim); XINFO STREAM the first block (FULL: the first COUNT entries, PlanInfo);
//    XTRIM and XADD with an exact trim the first block (PlanFirst). A command without one reads no block ahead.
using Garnet.server.Commands;
using Garnet.server.Objects;
using Garnet.server.Objects.Streams;

namespace Garnet.server.Session;

/// <summary>A stream command's read-ahead (CommandDefinition.PlanStreamBlocks): calls the plan of the read-ahead that fits the
/// command (PlanRange, PlanRead, PlanIds, ...) with the positions of its arguments. Runs before the command, on its request.</summary>
internal delegate void StreamBlockPlanner(StreamBlockReadAhead plan);

internal sealed class StreamBlockReadAhead
{
    private readonly RespServerSession _session;
    public const int MaxBlocksPerCommand = 64, MaxBlocksInFlight = 512, MaxRounds = 3, MaxBlocksBehind = 64;

    private readonly List<(long Offset, Task<byte[]?> Read)> _current = [];
    private readonly List<Task<byte[]?>> _waits = [];
    private readonly List<StreamBlock> _plan = [];
    // Blocks read for requests behind the current one, kept here (not only in the shared cache, which other connections
    // may cycle through meanwhile) until that request takes them; at most MaxBlocksBehind (then forgotten at once).
    private readonly Dictionary<long, Task<byte[]?>> _behind = [];

    /// <summary>The blocks pinned for the current request (by spill-file offset), or null.</summary>
    public Dictionary<long, byte[]>? Pinned { get; private set; }

    private readonly Func<StreamBlock, byte[]?> _known;

    public StreamBlockReadAhead(RespServerSession session)
    {
        _session = session;
        _known = b => Pinned is { } pins && pins.TryGetValue(b.SpillOffset, out var bytes) && bytes.Length == b.Used ? bytes
            : _behind.TryGetValue(b.SpillOffset, out var early) && early.IsCompletedSuccessfully && early.Result is { } ready && ready.Length == b.Used ? ready
            : b.Spill!.TryCached(b.SpillOffset, b.Used, out bytes, countHit: false) ? bytes : null;
    }

    /// <summary>Plans the current request's blocks (again, after a round of reads: a plan may stop at a block it must
    /// read to know how far to go): true when reads were started (await Wait(), then Pin(), then call this again).
    /// grew: blocks were added to the plan's pins (when none had to be awaited, plan again at once).</summary>
    public bool StartCurrent(CommandDefinition cmd, out bool grew)
    {
        Plan(cmd);
        NeedsReplan = _partial; // before a request behind is planned
        bool waiting = false;
        grew = false;
        foreach (var b in _plan)
        {
            if (b.Spill is not { } file || Pinned?.ContainsKey(b.SpillOffset) == true) continue;
            var read = _behind.Remove(b.SpillOffset, out var early) && early.IsCompletedSuccessfully && early.Result is { } ready ? Task.FromResult<byte[]?>(ready)
                : file.TryCached(b.SpillOffset, b.Used, out var bytes) ? Task.FromResult<byte[]?>(bytes)
                : file.TryReadFromPageCache(b.SpillOffset, b.Used) is { } copied ? Task.FromResult<byte[]?>(copied)
                : file.ReadAsync(b.SpillOffset, b.Used);
            _current.Add((b.SpillOffset, read));
            grew = true;
            if (!read.IsCompleted) { _waits.Add(read); waiting = true; }
        }
        _plan.Clear();
        if (!waiting) Pin();
        return waiting;
    }

    /// <summary>A request behind the current one (its arguments parsed into the session): its blocks go to the cache.</summary>
    public void StartBehind(CommandDefinition cmd)
    {
        if (_waits.Count >= MaxBlocksInFlight) return;
        Plan(cmd);
        foreach (var b in _plan)
        {
            if (b.Spill is not { } file || _behind.ContainsKey(b.SpillOffset)) continue;
            var read = file.ReadAsync(b.SpillOffset, b.Used);
            if (_behind.Count >= MaxBlocksBehind) _behind.Clear();
            _behind[b.SpillOffset] = read;
            if (!read.IsCompleted) _waits.Add(read);
        }
        _plan.Clear();
    }

    /// <summary>Completes when every read started is done (failures included: they fall back to the synchronous read).</summary>
    public Task? Wait()
    {
        if (_waits.Count == 0) return null;
        var all = Task.WhenAll(_waits);
        _waits.Clear();
        // The reads complete on the disk reader's thread: the connection resumes on the thread pool, never there.
        return all.ContinueWith(static _ => { }, TaskContinuationOptions.ExecuteSynchronously | TaskContinuationOptions.RunContinuationsAsynchronously);
    }

    /// <summary>After the wait: the current request's blocks become its pins.</summary>
    public void Pin()
    {
        if (_current.Count == 0) return;
        var pins = Pinned ?? new Dictionary<long, byte[]>();
        foreach (var (offset, read) in _current)
            if (read.IsCompletedSuccessfully && read.Result is { } bytes) pins[offset] = bytes;
        _current.Clear();
        Pinned = pins.Count > 0 ? pins : null;
    }

    /// <summary>The request ran: its pins go (the cache may still hold the bytes).</summary>
    public void Executed()
    {
        Pinned?.Clear();
        Pinned = null;
        _current.Clear();
    }

    // ---- planning ----

    private bool _partial; // the last plan stopped at a block it had to read first: plan again after the reads

    /// <summary>After the current request's reads: whether its plan must be made again (it stopped at a block it has
    /// now read); false: the plan was complete, run the command.</summary>
    public bool NeedsReplan { get; private set; }

    private void Plan(CommandDefinition cmd)
    {
        _plan.Clear();
        _partial = false;
        try
        {
            cmd.PlanStreamBlocks?.Invoke(this);
        }
        catch (Exception ex) when (ex is IndexOutOfRangeException or ArgumentOutOfRangeException or InvalidOperationException)
        {
            _plan.Clear(); // a malformed request: the command itself answers it
        }
    }

    private int Argc => _session.Argc;
    private ReadOnlySpan<byte> Arg(int i) => _session.Arg(i);

    /// <summary>Whether an argument from index from on is word (any case).</summary>
    internal bool HasArg(int from, string word)
    {
        for (int i = from; i < Argc; i++)
            if (System.Text.Ascii.EqualsIgnoreCase(Arg(i), word)) return true;
        return false;
    }

    private bool IsWord(int i, string word) =>
        i < Argc && System.Text.Ascii.EqualsIgnoreCase(Arg(i), word);

    /// <summary>Runs look on key's stream when its record is in memory (no disk read is awaited here).</summary>
    /// A look that completes later (the record left memory meanwhile) fills a list nobody reads.
    private void Peek(ReadOnlySpan<byte> key, Action<StreamObject, List<StreamBlock>> look)
    {
        var found = new List<StreamBlock>();
        var op = new CollectionOp<StreamObject>(ObjectKind.Stream, st => { look(st, found); return false; }, touches: false);
        if (_session.Storage.PeekObject(key, op)) _plan.AddRange(found.Take(MaxBlocksPerCommand - _plan.Count));
    }

    private static bool TryBound(ReadOnlySpan<byte> a, bool isStart, out StreamId id)
    {
        if (a.SequenceEqual("-"u8)) { id = StreamId.Min; return true; }
        if (a.SequenceEqual("+"u8)) { id = StreamId.Max; return true; }
        if (a.Length > 0 && a[0] == '(') a = a[1..]; // exclusive: the inclusive range covers it
        return StreamId.TryParse(a, isStart ? 0 : ulong.MaxValue, out id, out _);
    }

    private long CountAt(int i) => IsWord(i, "COUNT") && i + 1 < Argc && System.Buffers.Text.Utf8Parser.TryParse(Arg(i + 1), out long n, out int used) && used == Arg(i + 1).Length ? n : -1;

    /// <summary>XRANGE (reverse: XREVRANGE) key start end [COUNT n]: the blocks overlapping the range, up to COUNT live entries.</summary>
    internal void PlanRange(bool reverse)
    {
        if (Argc < 4) return;
        if (!TryBound(Arg(reverse ? 3 : 2), true, out var start) || !TryBound(Arg(reverse ? 2 : 3), false, out var end)) return;
        long count = CountAt(4);
        if (count == 0) return;
        Peek(Arg(1), (st, list) => _partial |= !st.Entries.SpilledBlocksOfRange(start, end, reverse, count, list, MaxBlocksPerCommand, _known));
    }

    /// <summary>XREAD (group: XREADGROUP GROUP g c) [COUNT n] [BLOCK ms] STREAMS keys ids: the blocks after each ID, or for
    /// XREADGROUP ">" after the group's last ID, for a history ID those of the consumer's pending IDs.</summary>
    internal void PlanRead(bool group)
    {
        long count = -1;
        int streams = -1;
        byte[]? groupName = null, consumer = null;
        for (int i = 1; i < Argc; i++)
        {
            if (IsWord(i, "COUNT")) { count = CountAt(i); i++; }
            else if (IsWord(i, "BLOCK")) i++;
            else if (IsWord(i, "GROUP") && i + 2 < Argc) { groupName = Arg(i + 1).ToArray(); consumer = Arg(i + 2).ToArray(); i += 2; }
            else if (IsWord(i, "STREAMS")) { streams = i + 1; break; }
        }
        if (streams < 0 || (Argc - streams) % 2 != 0 || count == 0) return;
        int keys = (Argc - streams) / 2;
        for (int k = 0; k < keys && _plan.Count < MaxBlocksPerCommand; k++)
        {
            var idArg = Arg(streams + keys + k);
            if (group && groupName is not null && idArg.SequenceEqual(">"u8))
            {
                Peek(Arg(streams + k), (st, list) =>
                {
                    if (st.FindGroup(groupName) is { } g && g.LastId.TryIncrement(out var from))
                        _partial |= !st.Entries.SpilledBlocksOfRange(from, StreamId.Max, false, count, list, MaxBlocksPerCommand, _known);
                });
            }
            else if (StreamId.TryParse(idArg, 0, out var after, out _) && after.TryIncrement(out var from))
            {
                if (!group)
                    Peek(Arg(streams + k), (st, list) => _partial |= !st.Entries.SpilledBlocksOfRange(from, StreamId.Max, false, count, list, MaxBlocksPerCommand, _known));
                else if (groupName is not null)
                    Peek(Arg(streams + k), (st, list) =>
                    {
                        if (st.FindGroup(groupName)?.Find(consumer!) is not { } c) return;
                        long n = 0;
                        foreach (var p in c.Pending.Range(from, StreamId.Max))
                        {
                            AddHolding(st, p.Id, list);
                            if (list.Count >= MaxBlocksPerCommand || (count > 0 && ++n >= count)) break;
                        }
                    });
            }
        }
    }

    private static void AddHolding(StreamObject st, StreamId id, List<StreamBlock> list)
    {
        if (st.Entries.SpilledBlockHolding(id) is { } b && (list.Count == 0 || !ReferenceEquals(list[^1], b))) list.Add(b);
    }

    /// <summary>The blocks holding the IDs named from index from on (up to the first argument that is not an ID) of the stream
    /// at keyAt.</summary>
    internal void PlanIds(int keyAt, int from)
    {
        var ids = new List<StreamId>();
        for (int i = from; i < Argc && ids.Count < MaxBlocksPerCommand; i++)
        {
            if (!StreamId.TryParse(Arg(i), 0, out var id, out _)) break; // an option (XCLAIM's IDLE, JUSTID, ...) ends the IDs
            ids.Add(id);
        }
        if (ids.Count == 0) return;
        Peek(Arg(keyAt), (st, list) => { foreach (var id in ids) AddHolding(st, id, list); });
    }

    /// <summary>XAUTOCLAIM key group consumer min-idle start [COUNT n]: the blocks of the group's pending IDs from start.</summary>
    internal void PlanAutoClaim()
    {
        if (Argc < 6 || HasArg(6, "JUSTID") || !StreamId.TryParse(Arg(5), 0, out var start, out _)) return;
        long count = CountAt(6) is var c && c > 0 ? c : 100;
        var groupName = Arg(2).ToArray();
        Peek(Arg(1), (st, list) =>
        {
            if (st.FindGroup(groupName) is not { } g) return;
            long n = 0;
            foreach (var p in g.Pending.Range(start, StreamId.Max))
            {
                AddHolding(st, p.Id, list);
                if (list.Count >= MaxBlocksPerCommand || ++n >= count) break;
            }
        });
    }

    /// <summary>XINFO STREAM key [FULL [COUNT n]]: the first block, or the blocks of the first COUNT entries.</summary>
    internal void PlanInfo()
    {
        if (Argc < 3) return;
        long count = IsWord(3, "FULL") ? (CountAt(4) is var c && c >= 0 ? c : 10) : 1;
        Peek(Arg(2), (st, list) => _partial |= !st.Entries.SpilledBlocksOfRange(StreamId.Min, StreamId.Max, false, count <= 0 ? -1 : count, list, MaxBlocksPerCommand, _known));
    }

    /// <summary>The first block of the stream at keyAt.</summary>
    internal void PlanFirst(int keyAt)
    {
        Peek(Arg(keyAt), (st, list) => { if (st.Entries.BlockCount > 0 && st.Entries.Blocks[0].IsSpilled) list.Add(st.Entries.Blocks[0]); });
    }
}
