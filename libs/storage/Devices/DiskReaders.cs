// DiskReaders: a fixed set of threads that do the log's random reads (pread), so that many reads are in flight at once
// without borrowing .NET thread-pool threads. On Linux, RandomAccess.ReadAsync runs a blocking pread on a pool thread;
// with the pool at its start size (the core count) only that many reads ran at once, and request threads waiting on
// them starved the pool (docs/storage.md, "Disk reads").
// Invariants:
//  - At most Depth reads run at once (one per thread); more wait in FIFO order. Threads start when reads find none idle.
//  - A read's completion (its continuation) runs on the reader thread: it must be short and must not block.
//  - After Dispose no read is started; queued ones fail with ObjectDisposedException.
using System.Collections.Concurrent;
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public sealed class DiskReaders : IDisposable
{
    private readonly ConcurrentQueue<Request> _queue = new();
    private readonly SemaphoreSlim _ready = new(0);
    private readonly int _depth;
    private int _started, _idle;
    private volatile bool _disposed;
    private long _reads, _bytes;

    /// <param name="depth">Reads in flight at most (threads), 1..1024.</param>
    public DiskReaders(int depth)
    {
        if (depth < 1 || depth > 1024) throw new ArgumentOutOfRangeException(nameof(depth), depth, "1..1024");
        _depth = depth;
    }

    public int Depth => _depth;

    /// <summary>Reader threads started so far (at most Depth).</summary>
    public int Threads => Volatile.Read(ref _started);

    /// <summary>Device reads done (each pread counts once).</summary>
    public long Reads => Interlocked.Read(ref _reads);

    /// <summary>Bytes those reads returned.</summary>
    public long BytesRead => Interlocked.Read(ref _bytes);

    /// <summary>Reads into buffer from handle at offset, on a reader thread; completes with the bytes read.</summary>
    public Task<int> ReadAsync(SafeFileHandle handle, Memory<byte> buffer, long offset)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        var r = new Request(handle, buffer, offset);
        _queue.Enqueue(r);
        if (Volatile.Read(ref _idle) == 0) StartThread();
        _ready.Release();
        return r.Task;
    }

    private void StartThread()
    {
        int n;
        do
        {
            n = Volatile.Read(ref _started);
            if (n >= _depth) return;
        }
        while (Interlocked.CompareExchange(ref _started, n + 1, n) != n);
        new Thread(Run, maxStackSize: 256 * 1024) { IsBackground = true, Name = "garnet-disk-read-" + n }.Start();
    }

    private void Run()
    {
        while (true)
        {
            Interlocked.Increment(ref _idle);
            _ready.Wait();
            Interlocked.Decrement(ref _idle);
            if (_disposed)
            {
                FailQueued();
                _ready.Release(); // the next thread wakes and leaves too
                return;
            }
            if (!_queue.TryDequeue(out var r)) continue;
            int n;
            try { n = RandomAccess.Read(r.Handle, r.Buffer.Span, r.Offset); }
            catch (Exception ex) { r.TrySetException(ex); continue; }
            Interlocked.Increment(ref _reads);
            Interlocked.Add(ref _bytes, n);
            r.TrySetResult(n);
        }
    }

    public void Dispose()
    {
        if (_disposed) return;
        _disposed = true;
        _ready.Release(); // wakes the threads one after another: each leaves
        FailQueued();
    }

    private void FailQueued()
    {
        while (_queue.TryDequeue(out var r)) r.TrySetException(new ObjectDisposedException(nameof(DiskReaders)));
    }

    /// <summary>One read; it is its own completion (one allocation per read).</summary>
    private sealed class Request(SafeFileHandle handle, Memory<byte> buffer, long offset) : TaskCompletionSource<int>
    {
        public readonly SafeFileHandle Handle = handle;
        public readonly Memory<byte> Buffer = buffer;
        public readonly long Offset = offset;
    }
}
