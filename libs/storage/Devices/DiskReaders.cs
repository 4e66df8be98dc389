// DiskReaders: a fixed set of threads that do the log's random reads (pread), so that many reads are in flight at once
// without borrowing .NET thread-pool threads. On Linux, RandomAccess.ReadAsync runs a blocking pread on a pool thread;
// with the pool at its start size (the core count) only that many reads ran at once, and request threads waiting on
// them starved the pool (docs/storage.md, "Disk reads").
// Invariants:
//  - At most Depth reads run at once (one per thread); more wait in FIFO order. Threads start when reads find none idle.
//  - A read's completion (its continuation) runs on the reader thread: it must be short and must not block.
//  - After Dispose no read is started; queued ones fail with ObjectDisposedException.
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public sealed class DiskReaders : IDisposable
{
    private readonly Queue<Request> _queue = new(); // under its own lock
    private readonly int _depth;
    private int _started, _idle;                     // under the queue's lock
    private bool _disposed;
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
        var r = new Request(handle, buffer, offset);
        bool start = false;
        lock (_queue)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            _queue.Enqueue(r);
            // A waiting thread takes it (Monitor.Wait blocks without spinning); the one woken is no longer counted idle, so
            // a second read right behind starts or wakes another.
            if (_idle > 0) { _idle--; Monitor.Pulse(_queue); }
            else if (_started < _depth) { _started++; start = true; }
        }
        if (start) new Thread(Run, maxStackSize: 256 * 1024) { IsBackground = true, Name = "garnet-disk-read" }.Start();
        return r.Task;
    }

    private void Run()
    {
        while (true)
        {
            Request r;
            lock (_queue)
            {
                while (_queue.Count == 0 && !_disposed)
                {
                    _idle++;
                    Monitor.Wait(_queue); // the pulse took this thread off _idle
                }
                if (_disposed) return; // Dispose failed what was queued
                r = _queue.Dequeue();
            }
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
        List<Request> failed;
        lock (_queue)
        {
            if (_disposed) return;
            _disposed = true;
            failed = new List<Request>(_queue);
            _queue.Clear();
            Monitor.PulseAll(_queue);
        }
        foreach (var r in failed) r.TrySetException(new ObjectDisposedException(nameof(DiskReaders)));
    }

    /// <summary>One read; it is its own completion (one allocation per read).</summary>
    private sealed class Request(SafeFileHandle handle, Memory<byte> buffer, long offset) : TaskCompletionSource<int>
    {
        public readonly SafeFileHandle Handle = handle;
        public readonly Memory<byte> Buffer = buffer;
        public readonly long Offset = offset;
    }
}
