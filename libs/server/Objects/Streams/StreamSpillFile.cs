// StreamSpillFile: where the sealed blocks of large streams go when they leave memory (docs/objects-streams.md,
// "Streams larger than memory"). One file per store (`stream-blocks.spill` in --dir); a block is written once, when it
// is spilled, and from then on a StreamBlock refers to it by (offset, length): an extent.
// Invariants:
//  - Offsets are handed out by one counter under _lock and never reused within a run, and the bytes of an extent never
//    change while it is listed: every version of a stream (the mutable record, copies in the read-only region, payloads
//    in the object log, COPY's new key, a checkpoint being written, a read in flight) may refer to them.
//  - Space is given back only by punching holes (fallocate PUNCH_HOLE | KEEP_SIZE): offsets stay valid, the file's length
//    only grows, its allocated blocks follow the extents still listed. An extent leaves the list only through Free, which
//    StreamSpillReclaimer calls for extents that two mark rounds found unreferenced (see there); a punched range never
//    touches a listed extent (it is cut to the file system blocks wholly between listed extents).
//  - Free refuses while a checkpoint holds the file (HoldForCheckpoint), and a checkpoint waits for a Free in progress.
//  - While a mark round runs, every copy or deserialization of a stream notes the extents it refers to (NoteReference),
//    and RENAME/COPY/MOVE of a stream register themselves (Moving): a round does not start while one is in flight.
//  - It is a cache tier, like the log: recovery reads checkpoints and the AOF, so the file is removed at start and at
//    dispose, and needs no fsync; a crash loses nothing.
using System.Runtime.InteropServices;
using Microsoft.Win32.SafeHandles;

namespace Garnet.server.Objects.Streams;

public sealed partial class StreamSpillFile : IDisposable
{
    public const string FileName = "stream-blocks.spill";
    private const int FsBlock = 4096;

    private readonly SafeFileHandle _handle;
    private readonly object _lock = new();
    private readonly List<(long Offset, int Length)> _extents = []; // in offset order, under _lock
    private long _tail;
    private long _listedBytes;
    private long _reclaimed;
    private int _disposed;
    private volatile bool _punchUnsupported;

    public StreamSpillFile(string dir)
    {
        Path = System.IO.Path.Combine(dir, FileName);
        _handle = File.OpenHandle(Path, FileMode.Create, FileAccess.ReadWrite, FileShare.Read);
    }

    public string Path { get; }
    /// <summary>Bytes handed out so far (the file's length).</summary>
    public long Bytes => Interlocked.Read(ref _tail);
    /// <summary>Bytes of the extents not freed (what the file keeps allocated, up to file-system block rounding).</summary>
    public long ListedBytes => Interlocked.Read(ref _listedBytes);
    /// <summary>Bytes of extents freed (holes punched) so far.</summary>
    public long ReclaimedBytes => Interlocked.Read(ref _reclaimed);
    /// <summary>False once the file system refused to punch a hole (space is then kept until restart).</summary>
    public bool CanReclaim => !_punchUnsupported;
    /// <summary>Told once when the file system cannot punch holes (the reclaimer logs it).</summary>
    public Action<string>? Warn { get; set; }

    /// <summary>Writes bytes at a new offset and returns it; throws IOException when the disk refuses the write.</summary>
    public long Append(ReadOnlySpan<byte> bytes)
    {
        long at;
        lock (_lock)
        {
            at = _tail;
            Interlocked.Exchange(ref _tail, at + bytes.Length);
            _extents.Add((at, bytes.Length));
            _listedBytes += bytes.Length;
        }
        try { RandomAccess.Write(_handle, bytes, at); }
        catch
        {
            Free([at]); // never referenced: give it back at once
            throw;
        }
        return at;
    }

    /// <summary>The listed extents below end (a mark round's candidates), in offset order.</summary>
    internal List<(long Offset, int Length)> ListedBelow(long end)
    {
        var result = new List<(long, int)>();
        lock (_lock)
            foreach (var e in _extents)
            {
                if (e.Offset >= end) break;
                result.Add(e);
            }
        return result;
    }

    // ---- freeing ----

    private int _checkpointHolds;

    /// <summary>While held (a checkpoint is being written), nothing is freed; waits for a Free in progress.</summary>
    public IDisposable HoldForCheckpoint()
    {
        lock (_lock) _checkpointHolds++;
        return new Release(() => { lock (_lock) _checkpointHolds--; });
    }

    /// <summary>Unlists the extents at these offsets and punches the file-system blocks that no listed extent uses any
    /// more; false (nothing done) while a checkpoint holds the file. Returns the bytes unlisted in freed.</summary>
    internal bool TryFree(IReadOnlyCollection<long> offsets, out long freed)
    {
        freed = 0;
        var holes = new List<(long From, long To)>();
        lock (_lock)
        {
            if (_checkpointHolds > 0) return false;
            freed = Unlist(offsets, holes);
            // Punched under the lock: a checkpoint cannot start meanwhile, and no extent can be listed in a hole.
            foreach (var (from, to) in holes) Punch(from, to);
        }
        return true;
    }

    private void Free(IReadOnlyCollection<long> offsets)
    {
        var holes = new List<(long, long)>();
        lock (_lock)
        {
            Unlist(offsets, holes);
            if (_checkpointHolds == 0) foreach (var (from, to) in holes) Punch(from, to);
        }
    }

    // Under _lock: removes the extents and returns the gaps (between the listed extents left) that they were in.
    private long Unlist(IReadOnlyCollection<long> offsets, List<(long, long)> holes)
    {
        var set = offsets as HashSet<long> ?? new HashSet<long>(offsets);
        long freed = 0, gapFrom = 0;
        bool gapHasFreed = false;
        var kept = new List<(long, int)>(_extents.Count);
        foreach (var e in _extents)
        {
            if (set.Contains(e.Offset))
            {
                freed += e.Length;
                gapHasFreed = true;
                continue;
            }
            if (gapHasFreed) holes.Add((gapFrom, e.Offset));
            gapHasFreed = false;
            kept.Add(e);
            gapFrom = e.Offset + e.Length;
        }
        if (gapHasFreed) holes.Add((gapFrom, _tail));
        _extents.Clear();
        _extents.AddRange(kept);
        _cache.Remove(set); // a freed extent is never served from the cache (a stale reference then reads the hole)
        _listedBytes -= freed;
        _reclaimed += freed;
        return freed;
    }

    private const int FallocKeepSize = 1, FallocPunchHole = 2, EOPNOTSUPP = 95, ENOSYS = 38;

    [LibraryImport("libc", SetLastError = true)]
    private static partial int fallocate(int fd, int mode, long offset, long length);

    // Whole file-system blocks in [from, to) (the edges belong to listed neighbours, or are not yet written).
    private void Punch(long from, long to)
    {
        if (_punchUnsupported || !OperatingSystem.IsLinux()) { _punchUnsupported = true; return; }
        long start = (from + FsBlock - 1) / FsBlock * FsBlock, end = to / FsBlock * FsBlock;
        if (end <= start) return;
        bool added = false;
        try
        {
            _handle.DangerousAddRef(ref added);
            int fd = (int)_handle.DangerousGetHandle();
            if (fallocate(fd, FallocPunchHole | FallocKeepSize, start, end - start) == 0) return;
            int errno = Marshal.GetLastPInvokeError();
            _punchUnsupported = true;
            Warn?.Invoke(errno is EOPNOTSUPP or ENOSYS
                ? $"The file system of {Path} cannot punch holes: space of stream blocks no longer used is kept until restart"
                : $"Punching a hole in {Path} failed (errno {errno}): space of stream blocks no longer used is kept until restart");
        }
        catch (Exception ex) when (ex is DllNotFoundException or EntryPointNotFoundException)
        {
            _punchUnsupported = true;
            Warn?.Invoke($"fallocate is not available ({ex.Message}): space of stream blocks no longer used in {Path} is kept until restart");
        }
        finally { if (added) _handle.DangerousRelease(); }
    }

    // ---- marking (see StreamSpillReclaimer) ----

    private HashSet<long>? _marked; // under _markLock; non-null while a round marks
    private readonly object _markLock = new();
    private volatile bool _marking;
    private long _movesInFlight;

    /// <summary>A copy or deserialization of a stream refers to the extent at offset: kept by the round in progress.</summary>
    public void NoteReference(long offset)
    {
        if (!_marking) return;
        lock (_markLock) _marked?.Add(offset);
    }

    /// <summary>Starts marking; false (and not marking) when a RENAME/COPY/MOVE of a stream is in flight: it may have
    /// fetched its value before marking began and write it where the round's scan will not look.</summary>
    internal bool BeginMark()
    {
        lock (_markLock) _marked = [];
        _marking = true;
        Interlocked.MemoryBarrier(); // the flag is visible before the count is read (Moving increments before it fetches)
        if (Interlocked.Read(ref _movesInFlight) == 0) return true;
        EndMark();
        return false;
    }

    internal HashSet<long> EndMark()
    {
        _marking = false;
        lock (_markLock)
        {
            var m = _marked!;
            _marked = null;
            return m;
        }
    }

    /// <summary>RENAME/COPY/MOVE hold this from before they fetch a value until they wrote it to its new key (dispose it
    /// early when the value is not a stream). A move that begins while a round marks is seen by the round through the
    /// fetch's Clone (NoteReference); one in flight when marking begins makes the round wait.</summary>
    public IDisposable Moving()
    {
        Interlocked.Increment(ref _movesInFlight);
        return new Release(() => Interlocked.Decrement(ref _movesInFlight));
    }

    private sealed class Release(Action action) : IDisposable
    {
        private int _done;
        public void Dispose() { if (Interlocked.Exchange(ref _done, 1) == 0) action(); }
    }

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0) return;
        _handle.Dispose();
        try { File.Delete(Path); } catch (IOException) { } catch (UnauthorizedAccessException) { }
    }
}
