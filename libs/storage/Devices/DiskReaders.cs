// DiskReaders: the log's random reads, many in flight at once without borrowing .NET thread-pool threads. Two engines:
// io_uring (UringReader: one ring thread submits reads in batches and reaps them; Linux 5.6+), or a fixed set of
// threads that each run a blocking pread (below). DiskReadMode.Auto takes io_uring where the kernel allows it; reads whose continuation may block
// still go to the threads. On Linux, RandomAccess.ReadAsync runs a blocking pread on a pool thread;
// with the pool at its start size (the core count) only that many reads ran at once, and request threads waiting on
// them starved the pool (docs/storage.md, "Disk reads").
// Invariants:
//  - At most Depth reads run at once (one per thread, or in the ring); more wait in FIFO order. Threads start when reads
//    find none idle; the ring starts with the first read (a store that never reads from disk costs no thread).
//  - A read's completion (its continuation) runs on the reader thread (a blocked one holds only that thread); with
//    io_uring only reads whose callers promise a short continuation use the ring (see UringReader).
//  - After Dispose no read is started; queued ones fail with ObjectDisposedException.
//  - A store record read started on a thread that holds a network loop with its own ring (LoopReadRing.Current) goes
//    to that ring when io_uring is in use; it counts here all the same.
using Microsoft.Win32.SafeHandles;

namespace Garnet.storage.Devices;

public sealed class DiskReaders : IDisposable
{
    private readonly Queue<DeviceRead> _queue = new(); // under its own lock
    private readonly int _depth;
    private int _started, _idle;                     // under the queue's lock
    private bool _disposed;
    private long _reads, _bytes, _loopRingReads, _loopRingBytes;

    private readonly DiskReadMode _mode;
    private UringReader? _ring;
    private volatile bool _ringTried;

    /// <param name="depth">Reads in flight at most (threads, or ring entries), 1..1024.</param>
    /// <param name="mode">Which engine; IoUring fails here (with the reason) where the kernel has none.</param>
    public DiskReaders(int depth, DiskReadMode mode = DiskReadMode.Auto)
    {
        if (depth < 1 || depth > 1024) throw new ArgumentOutOfRangeException(nameof(depth), depth, "1..1024");
        _depth = depth;
        _mode = mode;
        if (mode == DiskReadMode.IoUring)
        {
            _ring = UringReader.TryStart(depth, out string? why)
                ?? throw new NotSupportedException($"io_uring is not available here: {why}");
            _ringTried = true;
        }
    }

    public int Depth => _depth;

    /// <summary>The engine reads use: "io_uring", "threads", or "none yet" (Auto before the first read).</summary>
    public string Engine => _ring is not null ? "io_uring" : _mode == DiskReadMode.Threads || _ringTried ? "threads" : "none yet";

    /// <summary>Reader threads started so far (at most Depth), plus 1 for the ring.</summary>
    public int Threads => (_ring is not null ? 1 : 0) + Volatile.Read(ref _started);

    /// <summary>Device reads done (each read counts once).</summary>
    public long Reads => Interlocked.Read(ref _reads) + (_ring?.Reads ?? 0) + Interlocked.Read(ref _loopRingReads);

    /// <summary>Bytes those reads returned.</summary>
    public long BytesRead => Interlocked.Read(ref _bytes) + (_ring?.BytesRead ?? 0) + Interlocked.Read(ref _loopRingBytes);

    /// <summary>Of Reads, those done through network loops' own rings (LoopReadRing).</summary>
    public long LoopRingReads => Interlocked.Read(ref _loopRingReads);

    internal void CountLoopRingRead(int bytes)
    {
        Interlocked.Increment(ref _loopRingReads);
        Interlocked.Add(ref _loopRingBytes, bytes);
    }

    /// <summary>Reads into buffer from handle at offset; completes with the bytes read, on a reader thread.</summary>
    /// <param name="shortContinuation">The code after the caller's await is short and never blocks: with io_uring such a
    /// read goes to the ring (its continuation runs on the ring thread); every other read goes to a reader thread, which
    /// runs its continuation itself (one that blocks holds only that thread).</param>
    public Task<int> ReadAsync(SafeFileHandle handle, Memory<byte> buffer, long offset, bool shortContinuation = false)
    {
        var r = new TaskRead(handle, buffer, offset);
        Start(r, shortContinuation);
        return r.Task;
    }

    /// <summary>Starts r (Handle, FileOffset, IoLength set); its IoDone runs on the ring thread when shortContinuation
    /// (it must then be short and never block) and io_uring is in use, else on a reader thread.</summary>
    public void Start(DeviceRead r, bool shortContinuation)
    {
        if (!_ringTried && _mode == DiskReadMode.Auto) StartRing();
        if (shortContinuation && _ring is { } ring) { ring.Start(r); return; }
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
    }

    /// <summary>Starts a store record read (its IoDone short and never blocking): on the calling thread's loop ring when
    /// it holds one and io_uring is in use (the loop submits and reaps it), else as Start with a short continuation.</summary>
    public void StartRecordRead(BufferedDeviceRead r)
    {
        if (!_ringTried && _mode == DiskReadMode.Auto) StartRing();
        if (_ring is not null && LoopReadRing.Current is { } local && !_disposed && local.TryStart(r, this)) return;
        Start(r, shortContinuation: true);
    }

    private void StartRing()
    {
        lock (_queue)
        {
            if (_ringTried || _disposed) return;
            _ring = UringReader.TryStart(_depth, out _);
            _ringTried = true;
        }
    }

    private void Run()
    {
        while (true)
        {
            DeviceRead r;
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
            try { n = RandomAccess.Read(r.Handle, r.IoSpan, r.FileOffset); }
            catch (Exception ex) { r.Finish(0, ex); continue; }
            Interlocked.Increment(ref _reads);
            Interlocked.Add(ref _bytes, n);
            r.Finish(n, null);
        }
    }

    public void Dispose()
    {
        List<DeviceRead> failed;
        lock (_queue)
        {
            if (_disposed) return;
            _disposed = true;
            failed = new List<DeviceRead>(_queue);
            _queue.Clear();
            Monitor.PulseAll(_queue);
        }
        foreach (var r in failed) r.Finish(0, new ObjectDisposedException(nameof(DiskReaders)));
        _ring?.Dispose();
    }

    /// <summary>A read into caller memory that completes a Task (allocates per read: for reads off the request path).</summary>
    private sealed unsafe class TaskRead : DeviceRead
    {
        private readonly TaskCompletionSource<int> _done = new();
        private readonly Memory<byte> _buffer;
        private System.Buffers.MemoryHandle _pin;

        public TaskRead(SafeFileHandle handle, Memory<byte> buffer, long offset)
        {
            Handle = handle;
            FileOffset = offset;
            IoLength = buffer.Length;
            _buffer = buffer;
        }

        public Task<int> Task => _done.Task;
        internal override Span<byte> IoSpan => _buffer.Span;
        internal override byte* IoPointer => (byte*)_pin.Pointer;

        internal override int Pin()
        {
            _pin = _buffer.Pin();
            return base.Pin();
        }

        internal override void Unpin()
        {
            _pin.Dispose();
            _pin = default;
            base.Unpin();
        }

        internal override void IoDone(int n, Exception? error)
        {
            if (error is null) _done.TrySetResult(n);
            else _done.TrySetException(error);
        }
    }
}

/// <summary>How DiskReaders reads (option --disk-read-engine).</summary>
public enum DiskReadMode
{
    /// <summary>io_uring where the kernel allows it, else threads.</summary>
    Auto,
    /// <summary>io_uring, or fail at start.</summary>
    IoUring,
    /// <summary>A thread per read in flight (blocking pread).</summary>
    Threads,
}
