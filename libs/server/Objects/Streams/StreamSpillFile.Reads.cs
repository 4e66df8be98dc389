// StreamSpillFile, reading blocks back (docs/objects-streams.md, "Reading spilled blocks without blocking").
// A request's thread does not wait for the file: before a stream command runs, Session/StreamBlockReadAhead finds the
// spilled blocks it will need and reads them with ReadAsync (the connection awaits them without a thread); the bytes
// are pinned for that command (RequestScope) and kept in a bounded cache for the requests behind it and for others.
// Read, the synchronous path, looks at the pins and the cache first; a read it must make on a request thread (inside
// EXEC or a script, a command the read-ahead does not plan for, a block evicted meanwhile) is counted:
// INFO's stream_spill_reads_waited_on_thread.
// Invariants:
//  - Neither path changes an extent; both only read listed ones (a freed extent reads as a hole, which
//    StreamBlock.Readable reports as an error). The cache takes bytes only for extents still listed (checked under
//    _lock, where Unlist also drops freed ones from it), so it never hides a hole.
//  - A failed asynchronous read (disk error, file disposed) yields null: the command then reads synchronously and gets
//    the error there.
namespace Garnet.server.Objects.Streams;

public sealed partial class StreamSpillFile
{
    private readonly StreamBlockCache _cache = new();
    private readonly Dictionary<long, Task<byte[]?>> _inFlight = []; // under itself
    private long _reads, _asyncReads, _waitedReads, _cacheHits;

    /// <summary>Block reads served from the file (both paths).</summary>
    public long Reads => Interlocked.Read(ref _reads);
    /// <summary>Block reads issued asynchronously (by the read-ahead): INFO's stream_spill_reads_async.</summary>
    public long AsyncReads => Interlocked.Read(ref _asyncReads);
    /// <summary>Synchronous block reads made on a request's thread: INFO's stream_spill_reads_waited_on_thread.</summary>
    public long ReadsWaitedOnThread => Interlocked.Read(ref _waitedReads);
    /// <summary>Block reads answered from the pins or the cache.</summary>
    public long CacheHits => Interlocked.Read(ref _cacheHits);
    /// <summary>The store's disk reader (io_uring or its reader threads) for asynchronous reads; null: the thread pool's
    /// RandomAccess.ReadAsync. The code after a read is short and never blocks (it may run on the ring's thread); who
    /// awaits a read (StreamBlockReadAhead.Wait) resumes on the thread pool.</summary>
    public Garnet.storage.Devices.DiskReaders? Readers { get; set; }
    /// <summary>Bytes of blocks the cache may keep (set from --memory by the store).</summary>
    public long CacheCapacity { get => _cache.Capacity; set => _cache.Capacity = value; }

    /// <summary>Off: stream commands read their spilled blocks on the request thread, as before the read-ahead (for
    /// tests and measurements; process-wide).</summary>
    public static bool BlockReadAhead { get; set; } = true;

    // The current request on this thread (RespServerSession sets it around a command's run): blocks its read-ahead
    // loaded, by offset; OnRequest makes a synchronous read count as waited on the thread.
    [ThreadStatic] private static Dictionary<long, byte[]>? t_pinned;
    [ThreadStatic] private static bool t_onRequest;

    /// <summary>Marks this thread as running a request (with the blocks pinned for it) until the returned scope is
    /// restored; nests (EXEC, scripts).</summary>
    public static RequestScope EnterRequest(Dictionary<long, byte[]>? pinned)
    {
        var previous = new RequestScope(t_pinned, t_onRequest);
        t_pinned = pinned;
        t_onRequest = true;
        return previous;
    }

    public readonly struct RequestScope(Dictionary<long, byte[]>? pinned, bool onRequest)
    {
        public void Exit()
        {
            t_pinned = pinned;
            t_onRequest = onRequest;
        }
    }

    /// <summary>The length bytes written at offset (pinned, cached, or read now). Treat them as read-only.</summary>
    public byte[] Read(long offset, int length)
    {
        if (t_pinned is { } pins && pins.TryGetValue(offset, out var pinned) && pinned.Length == length
            || _cache.TryGet(offset, length, out pinned))
        {
            Interlocked.Increment(ref _cacheHits);
            return pinned;
        }
        if (t_onRequest) Interlocked.Increment(ref _waitedReads);
        var bytes = new byte[length];
        int done = 0;
        while (done < length)
        {
            int n = RandomAccess.Read(_handle, bytes.AsSpan(done), offset + done);
            if (n <= 0) throw new IOException($"stream block at {offset} ({length} bytes) is past the end of {Path}");
            done += n;
        }
        Interlocked.Increment(ref _reads);
        CacheIfListed(offset, bytes);
        return bytes;
    }

    /// <summary>The bytes of a block when the cache has them (no read).</summary>
    internal bool TryCached(long offset, int length, out byte[] bytes, bool countHit = true)
    {
        if (!_cache.TryGet(offset, length, out bytes)) return false;
        if (countHit) Interlocked.Increment(ref _cacheHits);
        return true;
    }

    /// <summary>Reads a block without a thread waiting (one read per extent at a time, shared); the bytes go to the
    /// cache too. Null when the read failed.</summary>
    internal Task<byte[]?> ReadAsync(long offset, int length)
    {
        if (_cache.TryGet(offset, length, out var cached)) return Task.FromResult<byte[]?>(cached);
        lock (_inFlight)
        {
            if (_inFlight.TryGetValue(offset, out var running)) return running;
            var started = ReadCoreAsync(offset, length);
            if (!started.IsCompleted) _inFlight[offset] = started;
            return started;
        }
    }

    private async Task<byte[]?> ReadCoreAsync(long offset, int length)
    {
        try
        {
            var bytes = new byte[length];
            int done = 0;
            while (done < length)
            {
                int n = Readers is { } readers
                    ? await readers.ReadAsync(_handle, bytes.AsMemory(done), offset + done, shortContinuation: true).ConfigureAwait(false)
                    : await RandomAccess.ReadAsync(_handle, bytes.AsMemory(done), offset + done).ConfigureAwait(false);
                if (n <= 0) return null;
                done += n;
            }
            Interlocked.Increment(ref _reads);
            Interlocked.Increment(ref _asyncReads);
            CacheIfListed(offset, bytes);
            return bytes;
        }
        catch (Exception ex) when (ex is IOException or ObjectDisposedException or UnauthorizedAccessException or InvalidOperationException) { return null; }
        finally
        {
            lock (_inFlight) _inFlight.Remove(offset);
        }
    }

    private void CacheIfListed(long offset, byte[] bytes)
    {
        lock (_lock)
            if (IsListed(offset, bytes.Length)) _cache.Add(offset, bytes);
    }

    // Under _lock: whether an extent (offset, length) is listed (binary search; _extents is in offset order).
    private bool IsListed(long offset, int length)
    {
        int lo = 0, hi = _extents.Count - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            var e = _extents[mid];
            if (e.Offset == offset) return e.Length == length;
            if (e.Offset < offset) lo = mid + 1;
            else hi = mid - 1;
        }
        return false;
    }
}
